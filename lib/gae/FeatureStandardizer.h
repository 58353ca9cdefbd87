// The column statistics of the GAE's node features (DESIGN §6): raw task-graph features mix
// one-hot columns with log2 sizes of very different ranges, so every column is shifted and
// scaled to zero mean and unit variance over the nodes of the training graphs. The statistics
// belong to the model (they are saved in its file), because embeddings of new tasks must be
// computed with the scaling the weights were trained with.
#pragma once

#include "features/TaskGraph.h"
#include "nn/Parameter.h"

#include <vector>

namespace clustune::gae {

class FeatureStandardizer {
public:
  FeatureStandardizer() = default;
  // Given statistics (1 × F each; a loaded model's). Every std must be positive.
  FeatureStandardizer(nn::Matrix mean, nn::Matrix standardDeviation);

  // Column mean and population standard deviation over all nodes of `graphs`; a column whose
  // standard deviation is 0 (constant, e.g. a one-hot never set) gets 1, so it maps to 0.
  // Throws clustune::Error when there is no node or the graphs disagree on featureCount.
  void fit(const std::vector<const features::TaskGraph*>& graphs);

  // (x − mean) / std for every node: nodeCount × featureCount. Throws clustune::Error when the
  // graph's featureCount differs from the fitted one or its feature array has the wrong size.
  nn::Matrix standardize(const features::TaskGraph& graph) const;

  int featureCount() const { return static_cast<int>(mean_.cols()); }
  bool fitted() const { return mean_.cols() > 0; }
  const nn::Matrix& mean() const { return mean_; }                           // 1 × F
  const nn::Matrix& standardDeviation() const { return standardDeviation_; } // 1 × F

private:
  nn::Matrix mean_;
  nn::Matrix standardDeviation_;
};

// The raw features of `graph` as a nodeCount × featureCount matrix; throws clustune::Error when
// the feature array does not hold nodeCount × featureCount values.
nn::Matrix rawFeatureMatrix(const features::TaskGraph& graph);

} // namespace clustune::gae
