// See AppendLog.h.
#include "support/AppendLog.h"

#include "support/Error.h"

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <pthread.h>
#include <spdlog/spdlog.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace clustune {
namespace {

std::string systemError() {
  return std::strerror(errno);
}

// Cuts a trailing partial line off the file open at `fd`; returns whether there was one.
bool removePartialLastLine(int fd, off_t size, const std::string& path) {
  if (size == 0)
    return false;
  char last = 0;
  if (::pread(fd, &last, 1, size - 1) != 1)
    throw Error("cannot read: " + systemError(), {.file = path});
  if (last == '\n')
    return false;
  // Scan backwards for the last newline, a block at a time.
  off_t keep = 0;
  char block[4096];
  for (off_t blockEnd = size; blockEnd > 0 && keep == 0;) {
    const off_t blockStart = blockEnd > off_t(sizeof block) ? blockEnd - off_t(sizeof block) : 0;
    const ssize_t got = ::pread(fd, block, static_cast<size_t>(blockEnd - blockStart), blockStart);
    if (got != blockEnd - blockStart)
      throw Error("cannot read: " + systemError(), {.file = path});
    for (off_t i = got - 1; i >= 0; --i)
      if (block[i] == '\n') {
        keep = blockStart + i + 1;
        break;
      }
    blockEnd = blockStart;
  }
  if (::ftruncate(fd, keep) != 0)
    throw Error("cannot truncate the partial last line: " + systemError(), {.file = path});
  return true;
}

// The logs open in this process, as fd + 1 (0: a free slot). A child forked without exec (a
// build process) would otherwise share each log's open file description, and with it the lock:
// after a kill -9 of this process, its children finishing their builds would keep the next run
// out. The descriptors are opened O_CLOEXEC, so exec'd children (workers) never hold them.
std::array<std::atomic<int>, 64> openLogs;

void closeLogsInForkedChild() {
  for (auto& slot : openLogs) // close(2) is async-signal-safe, as a forked child needs
    if (const int entry = slot.load(std::memory_order_relaxed); entry > 0)
      ::close(entry - 1);
}

void rememberOpenLog(int fd) {
  [[maybe_unused]] static const int registered =
      ::pthread_atfork(nullptr, nullptr, closeLogsInForkedChild);
  for (auto& slot : openLogs) {
    int expected = 0;
    if (slot.compare_exchange_strong(expected, fd + 1))
      return;
  }
  spdlog::debug("more than {} logs open: a forked child keeps fd {}", openLogs.size(), fd);
}

void forgetOpenLog(int fd) {
  for (auto& slot : openLogs) {
    int expected = fd + 1;
    if (slot.compare_exchange_strong(expected, 0))
      return;
  }
}

} // namespace

AppendLog::AppendLog(const std::string& path) : path_(path) {
  if (path == "-") {
    fd_ = STDOUT_FILENO;
    return;
  }
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw Error("cannot open for appending: " + systemError(), {.file = path});
  ownsFd_ = true;
  struct stat info = {};
  if (::fstat(fd_, &info) != 0) {
    const std::string reason = systemError();
    ::close(fd_);
    throw Error("cannot inspect: " + reason, {.file = path});
  }
  regularFile_ = S_ISREG(info.st_mode);
  if (!regularFile_)
    return; // a FIFO or /dev/null: nothing to lock or repair
  // The lock comes before the repair: without it, a line another run is writing right now
  // would look partial and be cut.
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const bool held = errno == EWOULDBLOCK;
    const std::string reason = systemError();
    ::close(fd_);
    fd_ = -1;
    throw Error(held ? "another clustune run is writing to this log (it holds the log's lock); "
                       "wait for it to finish, or write to another file"
                     : "cannot lock: " + reason,
                {.file = path});
  }
  try {
    droppedPartialLine_ = removePartialLastLine(fd_, info.st_size, path);
  } catch (...) {
    ::close(fd_);
    throw;
  }
  rememberOpenLog(fd_);
  if (droppedPartialLine_)
    spdlog::warn("{}: removed a partial last line (a run was killed while writing it)", path);
}

AppendLog::~AppendLog() {
  if (!ownsFd_ || fd_ < 0)
    return;
  forgetOpenLog(fd_);
  ::close(fd_);
}

void AppendLog::append(std::string_view line) {
  std::string text;
  text.reserve(line.size() + 1);
  text.append(line).push_back('\n');
  // The lock makes this process the only writer, so the end of the file is where the line
  // starts, and where to cut back to if it does not fit.
  const off_t start = regularFile_ ? ::lseek(fd_, 0, SEEK_END) : 0;
  std::size_t written = 0;
  // A regular file takes the whole line in one write; the loop covers pipes and short writes.
  while (written < text.size()) {
    const ssize_t count = ::write(fd_, text.data() + written, text.size() - written);
    if (count < 0 && errno == EINTR)
      continue;
    if (count <= 0) {
      const std::string reason = count < 0 ? systemError() : "nothing written";
      if (regularFile_ && written > 0 && start >= 0 && ::ftruncate(fd_, start) != 0)
        throw Error("cannot write a line (" + reason +
                        "), nor cut the part written back off: " + systemError(),
                    {.file = path_});
      throw Error("cannot write a line: " + reason, {.file = path_});
    }
    written += static_cast<std::size_t>(count);
  }
}

} // namespace clustune
