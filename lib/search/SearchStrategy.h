// The search strategy of a tuning round (DESIGN §7), in the style of TVM MetaSchedule's
// SearchStrategy: given a task, what was measured for it and a cost model, propose the next
// candidates to measure. A SearchTask holds what every round of a task reuses (its workload and
// sketches), so each is computed once per task.
#pragma once

#include "graph/Task.h"
#include "search/Candidate.h"
#include "search/CostModel.h"
#include "search/Sketch.h"
#include "support/Random.h"
#include "te/Tensor.h"

#include <span>
#include <string>
#include <unordered_set>
#include <vector>

namespace clustune::search {

struct SearchTask {
  graph::Task task;
  te::Workload workload;
  std::vector<Sketch> sketches;
};

// Lowers the task and generates its sketches; throws clustune::Error when it cannot be lowered.
SearchTask makeSearchTask(const graph::Task& task);

// What a round knows of its task's past.
struct SearchHistory {
  // scheduleText of every schedule measured for the task, valid or not: never proposed again.
  const std::unordered_set<std::string>* measured = nullptr;
  // Valid measured candidates, fastest first: they seed the population.
  std::span<const Candidate* const> fastest = {};
  // The fastest schedules of sibling tasks rewritten for this one (ScheduleTransfer.h), fastest
  // donor first, none measured for this task: a strategy measures some of them first.
  std::span<const Candidate> transferred = {};
};

// What a round of `count` candidates measures first: the first round(share × count) transferred
// candidates of `history`, at most `count`.
std::vector<Candidate> firstTransferred(const SearchHistory& history, int count, double share);

class SearchStrategy {
public:
  virtual ~SearchStrategy() = default;
  // At most `count` distinct candidates not measured before; fewer (or none) when the space
  // holds no more.
  virtual std::vector<Candidate> propose(const SearchTask& task, const SearchHistory& history,
                                         CostModel& model, int count, Rng& rng) = 0;
};

} // namespace clustune::search
