// The search strategy for GPU targets (issue 17), until GPU schedules have mutations of their
// own: each round draws a pool of GPU schedules (GpuSample.h, Ansor's SSSRRSRS tiling), drops
// those measured before, ranks the rest with the cost model and proposes the best, with a share
// picked at random among the others (Ansor's eps-greedy), so that a cost model trained on the
// run's own measurements keeps seeing what it would not have chosen. Schedules transferred
// from sibling tasks come first, as in EvolutionarySearch.
#pragma once

#include "search/GpuSample.h"
#include "search/SearchStrategy.h"

namespace clustune::search {

struct GpuSampleSearchOptions {
  int pool = 512;               // schedules drawn per round, before the measured ones are dropped
  double randomShare = 0.1;     // of the proposals, picked at random instead of by the model
  double transferShare = 0.125; // of the proposals, taken first from the transferred schedules
  GpuSampleOptions sampling = {};
};

class GpuSampleSearch final : public SearchStrategy {
public:
  explicit GpuSampleSearch(GpuSampleSearchOptions options) : options_(options) {}
  std::vector<Candidate> propose(const SearchTask& task, const SearchHistory& history,
                                 CostModel& model, int count, Rng& rng) override;

private:
  GpuSampleSearchOptions options_;
};

} // namespace clustune::search
