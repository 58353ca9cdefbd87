// See Files.h.
#include "support/Files.h"

#include "support/Error.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <sstream>
#include <unistd.h>

namespace clustune {

std::string displayPath(const std::string& path) {
  return path == "-" ? "<stdin>" : path;
}

TemporaryFolder::TemporaryFolder(const std::string& prefix) {
  const std::filesystem::path parent = std::filesystem::temp_directory_path();
  std::string pattern = (parent / (prefix + "-XXXXXX")).string();
  if (!::mkdtemp(pattern.data()))
    throw Error("cannot create a temporary folder under " + parent.string() + ": " +
                std::strerror(errno));
  path_ = pattern;
}

TemporaryFolder::~TemporaryFolder() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string readFileBytes(const std::string& path) {
  if (path == "-") {
    std::ostringstream buffer;
    buffer << std::cin.rdbuf();
    return buffer.str();
  }
  std::error_code error;
  if (std::filesystem::is_directory(path, error))
    throw Error("is a directory, not a file", {.file = path});
  std::ifstream file(path, std::ios::binary);
  if (!file)
    throw Error(std::string("cannot open: ") + std::strerror(errno), {.file = path});
  std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad())
    throw Error("read failed", {.file = path});
  return bytes;
}

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  if (path_.empty() || path_ == "-")
    return;
  std::error_code error;
  const auto status = std::filesystem::status(path_, error);
  if (!error && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    // A device or pipe (/dev/null, a FIFO): write in place; renaming over it would replace it.
    file_ = std::make_unique<std::ofstream>(path_, std::ios::binary);
    if (!*file_)
      throw Error(std::string("cannot write: ") + std::strerror(errno), {.file = path_});
    writesInPlace_ = true;
    return;
  }
  temporaryPath_ = path_ + ".tmp." + std::to_string(::getpid());
  file_ = std::make_unique<std::ofstream>(temporaryPath_, std::ios::binary | std::ios::trunc);
  if (!*file_)
    throw Error(std::string("cannot write: ") + std::strerror(errno), {.file = path_});
}

OutputFile::~OutputFile() {
  if (file_ && !committed_ && !writesInPlace_) {
    file_->close();
    std::remove(temporaryPath_.c_str());
  }
}

std::ostream& OutputFile::stream() {
  return file_ ? static_cast<std::ostream&>(*file_) : std::cout;
}

void OutputFile::commit() {
  if (!file_) {
    std::cout.flush();
    if (!std::cout)
      throw Error("write to stdout failed");
    committed_ = true;
    return;
  }
  file_->flush();
  file_->close();
  // The stream keeps no error code; errno still holds the failed write's (ENOSPC, EFBIG, EIO)
  // unless a later call failed too, so it is a hint, given when there is one.
  if (!*file_)
    throw Error(errno != 0 ? std::string("write failed: ") + std::strerror(errno) : "write failed",
                {.file = path_});
  if (writesInPlace_) {
    committed_ = true;
    return;
  }
  std::error_code error;
  std::filesystem::rename(temporaryPath_, path_, error);
  if (error)
    throw Error("cannot move output into place: " + error.message(), {.file = path_});
  committed_ = true;
}

} // namespace clustune
