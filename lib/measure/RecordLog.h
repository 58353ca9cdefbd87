// records.jsonl on disk: reading every record of a log, and appending to one so that a killed
// run loses nothing it has written. Each record is written with a single write(2) of a whole
// line to a descriptor opened with O_APPEND, so a process killed at any instant (kill -9) leaves
// complete lines, plus at most one partial last line if the kernel cut a write short; opening a
// log for appending removes such a partial line first. Power loss is out of scope (no fsync).
#pragma once

#include "measure/Record.h"
#include "support/Error.h"

#include <functional>
#include <string>
#include <vector>

namespace clustune::measure {

// Calls `visit` for each record of the log, in file order ("-" reads stdin). A malformed line
// raises clustune::Error naming the file and line.
void readRecords(const std::string& path,
                 const std::function<void(Record&&, const ErrorContext&)>& visit);

class RecordAppender {
public:
  // Creates the file if needed. A last line without its newline (a write cut short) is
  // removed and counted in droppedPartialLine(). "-" appends to stdout.
  explicit RecordAppender(const std::string& path);
  ~RecordAppender();
  RecordAppender(const RecordAppender&) = delete;
  RecordAppender& operator=(const RecordAppender&) = delete;

  void append(const Record& record);
  bool droppedPartialLine() const { return droppedPartialLine_; }

private:
  std::string path_;
  int fd_ = -1;
  bool ownsFd_ = false;
  bool droppedPartialLine_ = false;
};

} // namespace clustune::measure
