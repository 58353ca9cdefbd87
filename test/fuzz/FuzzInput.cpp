// See FuzzInput.h. Also the harnesses' shared libFuzzer initialisation: logging off, since the
// readers' warnings about refused lines would drown the fuzzer's own output.
#include "FuzzInput.h"

#include <cstdio>
#include <cstdlib>
#include <spdlog/spdlog.h>
#include <sys/mman.h>
#include <unistd.h>

namespace clustune::fuzz {

FuzzInputFile::FuzzInputFile(const std::uint8_t* data, std::size_t size) {
  descriptor_ = memfd_create("clustune-fuzz-input", MFD_CLOEXEC);
  if (descriptor_ < 0) {
    std::perror("memfd_create");
    std::abort();
  }
  for (std::size_t written = 0; written < size;) {
    const ssize_t count = write(descriptor_, data + written, size - written);
    if (count <= 0) {
      std::perror("write");
      std::abort();
    }
    written += static_cast<std::size_t>(count);
  }
  path_ = "/proc/self/fd/" + std::to_string(descriptor_);
}

FuzzInputFile::~FuzzInputFile() {
  close(descriptor_);
}

} // namespace clustune::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  return 0;
}
