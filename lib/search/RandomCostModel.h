// The random cost model (Ansor's RandomModel): uniform scores from a seeded stream, so that
// evolution selects blindly and the search is random sampling plus mutation. The floor every
// learned model must beat in the search-efficiency experiment.
#pragma once

#include "search/CostModel.h"
#include "support/Random.h"

#include <cstdint>

namespace clustune::search {

class RandomCostModel final : public CostModel {
public:
  explicit RandomCostModel(std::uint64_t seed) : rng_(seed) {}

  std::vector<double> predict(const graph::Task&,
                              std::span<const Candidate* const> candidates) override {
    std::vector<double> scores(candidates.size());
    for (double& score : scores)
      score = rng_.uniform();
    return scores;
  }
  void update(std::span<const Measurement>, UpdateBudget) override {}
  bool informative() const override { return false; }
  std::string name() const override { return "random"; }

private:
  Rng rng_;
};

} // namespace clustune::search
