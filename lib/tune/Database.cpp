// See Database.h.
#include "tune/Database.h"

#include "support/Error.h"

#include <algorithm>

namespace clustune::tune {

Database::Database(const std::string& path, const std::set<std::string>& taskKeys,
                   const std::string& target)
    : path_(path) {
  if (path == "-")
    throw Error("the tuning log must be a file (it is read back to resume), not '-'");
  // The appender first: it removes a partial last line, which reading would refuse.
  appender_ = std::make_unique<measure::RecordAppender>(path);
  measure::readRecords(path, [&](measure::Record&& record, const ErrorContext& context) {
    if (!taskKeys.contains(record.task))
      return;
    if (!record.target.empty() && record.target != target)
      throw Error("record of task " + record.task + " was measured on '" + record.target +
                      "', not on this target ('" + target +
                      "'): tune into a new log, or on the machine it came from",
                  context);
    remember(std::move(record));
  });
}

const std::vector<measure::Record>& Database::records(const std::string& taskKey) const {
  static const std::vector<measure::Record> none;
  const auto found = records_.find(taskKey);
  return found == records_.end() ? none : found->second;
}

bool Database::measured(const std::string& taskKey, const std::string& scheduleText) const {
  const auto found = measured_.find(taskKey);
  return found != measured_.end() && found->second.contains(scheduleText);
}

const std::unordered_set<std::string>& Database::measuredTexts(const std::string& taskKey) const {
  static const std::unordered_set<std::string> none;
  const auto found = measured_.find(taskKey);
  return found == measured_.end() ? none : found->second;
}

void Database::append(measure::Record record) {
  appender_->append(record);
  remember(std::move(record));
}

void Database::remember(measure::Record&& record) {
  if (record.tuneRound >= 0) {
    ++tuningTrials_;
    lastRound_ = std::max(lastRound_, record.tuneRound);
    elapsedSeconds_ = std::max(elapsedSeconds_, record.tuneSeconds);
  }
  measured_[record.task].insert(schedule::scheduleText(record.schedule));
  records_[record.task].push_back(std::move(record));
}

} // namespace clustune::tune
