// An append-only JSONL log on disk (records.jsonl, a tuning curve) that survives its writer
// being killed, a full disk and a second writer:
// - each line goes out in one write(2) to a descriptor opened with O_APPEND, so a run killed at
//   any instant (kill -9) leaves whole lines plus at most one partial last line, where the
//   kernel cut a write short; opening the log removes such a line first;
// - a write that fails (ENOSPC, EFBIG) is undone: the log is cut back to its last whole line
//   before the error is raised, so nothing already written is touched;
// - the writer holds an exclusive flock(2) on the log for its lifetime, so a second run on the
//   same log is refused at once instead of interleaving its lines (and cutting the first run's
//   line in progress as "partial"). The kernel drops the lock when the process dies.
// Power loss is out of scope (no fsync).
#pragma once

#include <string>
#include <string_view>

namespace clustune {

class AppendLog {
public:
  // Creates the file if needed. "-" appends to stdout, without a lock or repair. Throws
  // clustune::Error naming the file when it cannot be opened or another process holds it.
  explicit AppendLog(const std::string& path);
  ~AppendLog();
  AppendLog(const AppendLog&) = delete;
  AppendLog& operator=(const AppendLog&) = delete;

  // `line` without its newline. Throws clustune::Error when the write fails, after undoing it.
  void append(std::string_view line);

  // Whether opening removed a partial last line (a run killed while writing it).
  bool droppedPartialLine() const { return droppedPartialLine_; }
  const std::string& path() const { return path_; }

private:
  std::string path_;
  int fd_ = -1;
  bool ownsFd_ = false;
  bool regularFile_ = false;
  bool droppedPartialLine_ = false;
};

} // namespace clustune
