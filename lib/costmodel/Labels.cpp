#include "costmodel/Labels.h"

#include <cassert>

namespace clustune::costmodel {

std::map<std::string, double> fastestCostPerTask(const std::vector<measure::Record>& records) {
  std::map<std::string, double> fastest;
  for (const measure::Record& record : records) {
    if (!record.ok())
      continue;
    const double cost = record.meanCost();
    auto [entry, inserted] = fastest.try_emplace(record.task, cost);
    if (!inserted && cost < entry->second)
      entry->second = cost;
  }
  return fastest;
}

double normalisedThroughput(double cost, double fastest) {
  assert(cost > 0 && fastest > 0 && fastest <= cost);
  return fastest / cost;
}

} // namespace clustune::costmodel
