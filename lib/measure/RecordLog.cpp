// See RecordLog.h.
#include "measure/RecordLog.h"

#include "runtime/ThreadPool.h"
#include "support/Jsonl.h"

#include <exception>
#include <optional>
#include <vector>

namespace clustune::measure {

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

void RecordAppender::append(const Record& record) {
  log_.append(recordToJson(record).dump());
}

} // namespace clustune::measure
