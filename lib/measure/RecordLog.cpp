// See RecordLog.h.
#include "measure/RecordLog.h"

#include "runtime/ThreadPool.h"
#include "support/Jsonl.h"

#include <cerrno>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <optional>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

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
  // Parsing JSON is most of the cost of reading a log, so lines are parsed a block at a time on
  // every thread. Records are still visited in file order, and an error is raised at its line
  // after the records before it were visited, as a line-by-line reader would.
  constexpr std::size_t kLinesPerBlock = 4096;
  JsonlReader reader(path);
  runtime::ThreadPool& pool = runtime::ThreadPool::global();
  std::vector<std::string> lines;
  std::vector<ErrorContext> contexts;
  std::vector<std::optional<Record>> parsed;
  std::vector<std::exception_ptr> errors;
  for (bool more = true; more;) {
    lines.clear();
    contexts.clear();
    std::string line;
    while (lines.size() < kLinesPerBlock && (more = reader.nextLine(line))) {
      lines.push_back(std::move(line));
      contexts.push_back(reader.context());
    }
    parsed.assign(lines.size(), std::nullopt);
    errors.assign(lines.size(), nullptr);
    pool.parallelFor(
        static_cast<std::int64_t>(lines.size()), [&](std::int64_t first, std::int64_t last) {
          for (auto index = static_cast<std::size_t>(first); index < static_cast<std::size_t>(last);
               ++index) {
            try {
              parsed[index] =
                  recordFromJson(parseJsonlLine(lines[index], contexts[index]), contexts[index]);
            } catch (...) {
              errors[index] = std::current_exception();
            }
          }
        });
    for (std::size_t index = 0; index < lines.size(); ++index) {
      if (errors[index])
        std::rethrow_exception(errors[index]);
      visit(std::move(*parsed[index]), contexts[index]);
    }
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
