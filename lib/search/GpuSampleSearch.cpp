// See GpuSampleSearch.h.
#include "search/GpuSampleSearch.h"

#include "schedule/Step.h"

#include <algorithm>
#include <iterator>
#include <numeric>
#include <spdlog/spdlog.h>

namespace clustune::search {

std::vector<Candidate> GpuSampleSearch::propose(const SearchTask& task,
                                                const SearchHistory& history, CostModel& model,
                                                int count, Rng& rng) {
  if (count <= 0)
    return {};
  std::vector<Candidate> proposed = firstTransferred(history, count, options_.transferShare);
  const int transferred = static_cast<int>(proposed.size());
  count -= transferred;
  std::vector<Candidate> pool;
  for (std::vector<schedule::Step>& steps :
       sampleGpu(task.workload, options_.pool, rng.next(), options_.sampling)) {
    const std::string text = schedule::scheduleText(steps);
    if (history.measured && history.measured->count(text))
      continue;
    if (std::any_of(proposed.begin(), proposed.end(),
                    [&](const Candidate& taken) { return taken.text == text; }))
      continue;
    if (std::optional<Candidate> candidate = makeCandidate(task.workload, std::move(steps)))
      pool.push_back(std::move(*candidate));
  }
  if (static_cast<int>(pool.size()) <= count) {
    std::move(pool.begin(), pool.end(), std::back_inserter(proposed));
    return proposed;
  }

  std::vector<const Candidate*> views;
  for (const Candidate& candidate : pool)
    views.push_back(&candidate);
  const std::vector<double> scores = model.predict(task.task, views);
  std::vector<std::size_t> order(pool.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
  const int random = std::min(count, static_cast<int>(options_.randomShare * count + 0.5));
  const int best = count - random;
  // The rest of the ranking, shuffled: the random picks come from what the model passed over.
  for (std::size_t i = order.size() - 1; i > static_cast<std::size_t>(best); --i)
    std::swap(order[i], order[best + rng.uniformInt(i - best + 1)]);
  for (int i = 0; i < count; ++i)
    proposed.push_back(std::move(pool[order[static_cast<std::size_t>(i)]]));
  spdlog::debug("GPU search of {}: {} drawn, {} proposed ({} at random, {} transferred)",
                task.task.key, pool.size(), proposed.size(), random, transferred);
  return proposed;
}

} // namespace clustune::search
