// See TuningLog.h.
#include "executor/TuningLog.h"

#include "support/Error.h"
#include "support/Jsonl.h"

#include <numeric>

namespace clustune::executor {

std::map<std::string, BestRecord> readBestSchedules(const std::string& path) {
  std::map<std::string, BestRecord> best;
  JsonlReader reader(path);
  nlohmann::json record;
  while (reader.next(record)) {
    const ErrorContext context = reader.context();
    if (requireField<int>(record, "v", context) != 1)
      throw Error("unsupported record version", context);
    const auto task = requireField<std::string>(record, "task", context);
    if (record.contains("error") && !record["error"].is_null())
      continue;
    const auto costs = requireField<std::vector<double>>(record, "costs", context);
    if (costs.empty())
      continue;
    for (double cost : costs)
      if (!(cost > 0.0))
        throw Error("field 'costs' holds a non-positive or NaN cost", context);
    const double seconds = std::accumulate(costs.begin(), costs.end(), 0.0) / costs.size();
    auto found = best.find(task);
    if (found != best.end() && found->second.seconds <= seconds)
      continue;
    std::vector<schedule::Step> steps;
    try {
      steps = schedule::stepsFromJson(requireField<nlohmann::json>(record, "schedule", context));
    } catch (const Error& error) {
      throw Error("invalid schedule: " + error.message(), context);
    }
    best[task] = {std::move(steps), seconds};
  }
  return best;
}

} // namespace clustune::executor
