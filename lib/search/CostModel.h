// The cost-model interface of the search (DESIGN §7), in the style of TVM MetaSchedule's
// CostModel: evolution asks it to rank candidates of a task, and the tuner tells it what each
// measured candidate cost. Scores only need to order candidates of one task (higher = predicted
// faster); nothing compares scores across tasks. Implementations: RandomCostModel here, the
// learned MLP models in lib/tune (pretrained per-cluster or global, and online).
#pragma once

#include "graph/Task.h"
#include "search/Candidate.h"

#include <span>
#include <string>
#include <vector>

namespace clustune::search {

// A valid measurement: the candidate of `task` ran correctly at `seconds` (mean over repeats).
struct Measurement {
  const graph::Task* task = nullptr;
  const Candidate* candidate = nullptr;
  double seconds = 0;
};

// How long one update may take, in wall seconds (0: no limit). The tuner gives each round's
// update a share of the round's own search and measurement time; a learned model stops
// training when it is spent (after at least one step), so that learning never dominates the
// time the search is judged by.
struct UpdateBudget {
  double seconds = 0;
};

class CostModel {
public:
  virtual ~CostModel() = default;

  // One score per candidate, in order.
  virtual std::vector<double> predict(const graph::Task& task,
                                      std::span<const Candidate* const> candidates) = 0;
  // Learns from a batch of measurements (one round, or a resumed log's worth), which may span
  // several tasks, within `budget`.
  virtual void update(std::span<const Measurement> measurements, UpdateBudget budget) = 0;
  // False for a model without information (random): evolution then spends fewer iterations,
  // as Ansor does.
  virtual bool informative() const { return true; }
  virtual std::string name() const = 0;
};

} // namespace clustune::search
