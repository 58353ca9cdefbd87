// File input and output with the conventions every tool shares: "-" means stdin or stdout, a
// missing or unreadable file is a clustune::Error naming the path, and outputs are written to a
// temporary file that replaces the destination only on commit(), so a failed run never leaves a
// partial output file behind. Devices and pipes (/dev/null, FIFOs) are written in place.
#pragma once

#include <fstream>
#include <memory>
#include <ostream>
#include <string>

namespace clustune {

// Reads a whole file (or stdin for "-") as bytes.
std::string readFileBytes(const std::string& path);

// A display name for messages: "<stdin>" for "-".
std::string displayPath(const std::string& path);

// A fresh private folder under the system's temporary folder (<prefix>-XXXXXX), removed with
// everything in it when the object goes. Throws clustune::Error when it cannot be created.
class TemporaryFolder {
public:
  explicit TemporaryFolder(const std::string& prefix);
  ~TemporaryFolder();
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
  const std::string& path() const { return path_; }

private:
  std::string path_;
};

class OutputFile {
public:
  // path "-" (or empty) writes to stdout directly.
  explicit OutputFile(std::string path);
  ~OutputFile(); // removes the temporary file unless committed
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  std::ostream& stream();
  // Flushes, checks for write errors and moves the temporary file into place.
  void commit();
  const std::string& path() const { return path_; }

private:
  std::string path_;
  std::string temporaryPath_;
  std::unique_ptr<std::ofstream> file_;
  bool committed_ = false;
  bool writesInPlace_ = false; // the destination is a device or pipe, not a regular file
};

} // namespace clustune
