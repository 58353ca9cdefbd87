// What every libFuzzer harness of test/fuzz shares. clustune's readers open paths, so the fuzzed
// bytes become an anonymous in-memory file (memfd) named through /proc/self/fd: no run touches
// the disk, and parallel jobs never share a file. A reader may refuse the bytes with
// clustune::Error, which is what a user sees as `error: ...`; any other exception, a crash, a
// leak or undefined behaviour escapes the harness and is a finding.
#pragma once

#include "support/Error.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace clustune::fuzz {

class FuzzInputFile {
public:
  FuzzInputFile(const std::uint8_t* data, std::size_t size);
  ~FuzzInputFile();
  FuzzInputFile(const FuzzInputFile&) = delete;
  FuzzInputFile& operator=(const FuzzInputFile&) = delete;

  const std::string& path() const { return path_; }

private:
  int descriptor_ = -1;
  std::string path_;
};

// Runs read(path) on the bytes as a file, accepting a clustune::Error as a refusal.
template <class Read>
int readAsFile(const std::uint8_t* data, std::size_t size, Read read) {
  const FuzzInputFile file(data, size);
  try {
    read(file.path());
  } catch (const Error&) {
  }
  return 0;
}

} // namespace clustune::fuzz
