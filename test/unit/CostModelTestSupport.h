// Shared by the lib/costmodel tests: real tasks (a matmul and an element-wise chain), schedules
// sampled from their real search spaces, and records whose costs the test chooses, so that a
// test knows the right ranking; the features are computed from the real lowered programs.
#pragma once

#include "MeasureTestSupport.h"
#include "costmodel/ProgramDataset.h"
#include "measure/Record.h"
#include "search/Sample.h"

#include <functional>
#include <vector>

namespace clustune::costmodel::testing {

// `count` sampled schedules of `task`, each as a valid record with cost cost(index).
inline std::vector<measure::Record> sampledRecords(const graph::Task& task, int count,
                                                   const std::function<double(int)>& cost,
                                                   std::uint64_t seed = 1) {
  std::vector<measure::Record> records;
  const auto schedules = search::sample(task, count, seed, {.cores = 2, .vectorLanes = 16});
  for (std::size_t index = 0; index < schedules.size(); ++index) {
    measure::Record record;
    record.task = task.key;
    record.target = "llvm -mcpu=test -threads=2";
    record.schedule = schedules[index];
    record.costs = {cost(static_cast<int>(index))};
    records.push_back(record);
  }
  return records;
}

} // namespace clustune::costmodel::testing
