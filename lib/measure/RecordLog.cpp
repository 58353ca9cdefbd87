// See RecordLog.h.
#include "measure/RecordLog.h"

#include "support/Jsonl.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

namespace clustune::measure {
namespace {

std::string systemError() {
  return std::strerror(errno);
}

// Cuts a trailing partial line off the file open at `fd`; returns whether there was one.
bool removePartialLastLine(int fd, const std::string& path) {
  struct stat info = {};
  if (::fstat(fd, &info) != 0)
    throw Error("cannot inspect: " + systemError(), {.file = path});
  if (!S_ISREG(info.st_mode) || info.st_size == 0)
    return false;
  // Scan backwards for the last newline, a block at a time.
  off_t end = info.st_size;
  char last = 0;
  if (::pread(fd, &last, 1, end - 1) != 1)
    throw Error("cannot read: " + systemError(), {.file = path});
  if (last == '\n')
    return false;
  off_t keep = 0;
  char block[4096];
  for (off_t blockEnd = end; blockEnd > 0 && keep == 0;) {
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

} // namespace

void readRecords(const std::string& path,
                 const std::function<void(Record&&, const ErrorContext&)>& visit) {
  JsonlReader reader(path);
  nlohmann::json entry;
  while (reader.next(entry)) {
    const ErrorContext context = reader.context();
    visit(recordFromJson(entry, context), context);
  }
}

RecordAppender::RecordAppender(const std::string& path) : path_(path) {
  if (path == "-") {
    fd_ = STDOUT_FILENO;
    return;
  }
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw Error("cannot open for appending: " + systemError(), {.file = path});
  ownsFd_ = true;
  droppedPartialLine_ = removePartialLastLine(fd_, path);
  if (droppedPartialLine_)
    spdlog::warn("{}: removed a partial last line (a run was killed while writing it)", path);
}

RecordAppender::~RecordAppender() {
  if (ownsFd_)
    ::close(fd_);
}

void RecordAppender::append(const Record& record) {
  const std::string line = recordToJson(record).dump() + "\n";
  std::size_t written = 0;
  // A regular file takes the whole line in one write; the loop covers pipes and short writes.
  while (written < line.size()) {
    const ssize_t count = ::write(fd_, line.data() + written, line.size() - written);
    if (count < 0 && errno == EINTR)
      continue;
    if (count <= 0)
      throw Error("cannot write a record: " + systemError(), {.file = path_});
    written += static_cast<std::size_t>(count);
  }
}

} // namespace clustune::measure
