// See TuningLog.h.
#include "executor/TuningLog.h"

#include "measure/RecordLog.h"

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

} // namespace clustune::executor
