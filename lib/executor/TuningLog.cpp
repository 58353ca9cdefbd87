// See TuningLog.h.
#include "executor/TuningLog.h"

#include "measure/RecordLog.h"

#include <spdlog/spdlog.h>

namespace clustune::executor {

std::map<std::string, BestRecord> readBestSchedules(const std::string& path, bool gpu) {
  std::map<std::string, BestRecord> best;
  measure::readRecords(path, [&](measure::Record&& record, const ErrorContext&) {
    if (!record.ok() || record.target.starts_with("cuda") != gpu)
      return;
    const double seconds = record.meanCost();
    auto found = best.find(record.task);
    if (found != best.end() && found->second.seconds <= seconds)
      return;
    best[record.task] = {std::move(record.schedule), seconds};
  });
  return best;
}

ScheduleCoverage::ScheduleCoverage(std::string logPath, bool gpu) : logPath_(std::move(logPath)) {
  if (!logPath_.empty())
    best_ = readBestSchedules(logPath_, gpu);
}

std::function<std::optional<std::vector<schedule::Step>>(const std::string&)>
ScheduleCoverage::lookup() {
  if (logPath_.empty())
    return {};
  return [this](const std::string& key) { return find(key); };
}

std::optional<std::vector<schedule::Step>> ScheduleCoverage::find(const std::string& key) {
  const std::lock_guard lock(mutex_);
  const auto found = best_.find(key);
  if (found == best_.end()) {
    uncovered_.insert(key);
    return std::nullopt;
  }
  covered_.insert(key);
  return found->second.steps;
}

std::size_t ScheduleCoverage::covered() const {
  const std::lock_guard lock(mutex_);
  return covered_.size();
}

std::size_t ScheduleCoverage::uncovered() const {
  const std::lock_guard lock(mutex_);
  return uncovered_.size();
}

void ScheduleCoverage::warnIfIncomplete() const {
  const std::size_t misses = uncovered();
  if (misses > 0)
    spdlog::warn("{}: {} of {} kernels have no schedule in this log of {} tasks and run their "
                 "default schedules (was it tuned with another --layout, batch size or model, or "
                 "cut short?)",
                 logPath_, misses, misses + covered(), best_.size());
}

} // namespace clustune::executor
