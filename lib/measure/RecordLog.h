// records.jsonl on disk: reading every record of a log, and appending to one so that a killed
// run loses nothing it has written, a full disk corrupts nothing, and two runs never write one
// log at once (support/AppendLog.h).
#pragma once

#include "measure/Record.h"
#include "support/AppendLog.h"
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
  // Creates the file if needed, locks it and removes a partial last line (counted in
  // droppedPartialLine()). "-" appends to stdout.
  explicit RecordAppender(const std::string& path) : log_(path) {}

  void append(const Record& record);
  bool droppedPartialLine() const { return log_.droppedPartialLine(); }

private:
  AppendLog log_;
};

} // namespace clustune::measure
