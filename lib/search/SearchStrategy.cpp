// See SearchStrategy.h.
#include "search/SearchStrategy.h"

#include "te/LowerTask.h"

namespace clustune::search {

SearchTask makeSearchTask(const graph::Task& task) {
  te::Workload workload = te::lowerTask(task);
  std::vector<Sketch> sketches = generateSketches(workload);
  return SearchTask{.task = task, .workload = std::move(workload), .sketches = std::move(sketches)};
}

} // namespace clustune::search
