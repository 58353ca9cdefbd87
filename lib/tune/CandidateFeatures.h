// The cost models' input for search candidates: every candidate's statement feature rows
// (costmodel::programFeatures: Ansor's per-store features and the task's tags) stacked into one
// matrix with program offsets, the layout MlpCostModel::predict and training take. Featurising
// is the search's largest cost after lowering, so it runs on the process's thread pool.
#pragma once

#include "graph/Task.h"
#include "nn/Parameter.h"
#include "search/Candidate.h"

#include <span>
#include <vector>

namespace clustune::tune {

struct FeatureBatch {
  nn::Matrix statements;
  std::vector<int> offsets = {0}; // candidate c owns rows [offsets[c], offsets[c + 1])
};

FeatureBatch featurize(const graph::Task& task,
                       std::span<const search::Candidate* const> candidates);

} // namespace clustune::tune
