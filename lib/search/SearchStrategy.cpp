// See SearchStrategy.h.
#include "search/SearchStrategy.h"

#include "te/LowerTask.h"

#include <algorithm>

namespace clustune::search {

SearchTask makeSearchTask(const graph::Task& task) {
  te::Workload workload = te::lowerTask(task);
  std::vector<Sketch> sketches = generateSketches(workload);
  return SearchTask{.task = task, .workload = std::move(workload), .sketches = std::move(sketches)};
}

std::vector<Candidate> firstTransferred(const SearchHistory& history, int count, double share) {
  const int wanted = std::clamp(static_cast<int>(share * count + 0.5), 0, std::max(count, 0));
  const std::size_t taken = std::min(history.transferred.size(), static_cast<std::size_t>(wanted));
  return {history.transferred.begin(), history.transferred.begin() + taken};
}

} // namespace clustune::search
