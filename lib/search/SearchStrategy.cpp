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

std::vector<Candidate> firstTransferred(const SearchHistory& history, int limit) {
  const std::size_t count =
      limit < 0 ? history.transferred.size()
                : std::min(history.transferred.size(), static_cast<std::size_t>(limit));
  return {history.transferred.begin(), history.transferred.begin() + count};
}

} // namespace clustune::search
