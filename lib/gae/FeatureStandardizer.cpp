// Statistics are accumulated in double: a column such as log2 of output elements summed over
// tens of thousands of nodes would lose digits in float, and its variance more so.
#include "gae/FeatureStandardizer.h"

#include "support/Error.h"

#include <cassert>
#include <cmath>

namespace clustune::gae {

nn::Matrix rawFeatureMatrix(const features::TaskGraph& graph) {
  if (graph.features.size() != graph.nodeCount * graph.featureCount)
    throw Error("task graph '" + graph.anchor + "' has " + std::to_string(graph.features.size()) +
                " feature values, expected " + std::to_string(graph.nodeCount) + " nodes × " +
                std::to_string(graph.featureCount) + " features");
  return Eigen::Map<const nn::Matrix>(graph.features.data(),
                                      static_cast<Eigen::Index>(graph.nodeCount),
                                      static_cast<Eigen::Index>(graph.featureCount));
}

FeatureStandardizer::FeatureStandardizer(nn::Matrix mean, nn::Matrix standardDeviation)
    : mean_(std::move(mean)), standardDeviation_(std::move(standardDeviation)) {
  assert(mean_.rows() == 1 && standardDeviation_.rows() == 1);
  assert(mean_.cols() == standardDeviation_.cols());
  assert((standardDeviation_.array() > 0).all());
}

void FeatureStandardizer::fit(const std::vector<const features::TaskGraph*>& graphs) {
  if (graphs.empty())
    throw Error("cannot fit feature statistics on no task graphs");
  const std::size_t featureCount = graphs.front()->featureCount;
  Eigen::RowVectorXd sum = Eigen::RowVectorXd::Zero(static_cast<Eigen::Index>(featureCount));
  Eigen::RowVectorXd sumOfSquares = sum;
  std::size_t nodes = 0;
  // Two passes (mean first, then squared deviations) keep the variance exact for columns whose
  // mean is large compared with their spread.
  for (const features::TaskGraph* graph : graphs) {
    if (graph->featureCount != featureCount)
      throw Error("task graph '" + graph->anchor + "' has " + std::to_string(graph->featureCount) +
                  " features, the first graph has " + std::to_string(featureCount));
    sum += rawFeatureMatrix(*graph).cast<double>().colwise().sum();
    nodes += graph->nodeCount;
  }
  if (nodes == 0)
    throw Error("cannot fit feature statistics: the task graphs have no nodes");
  const Eigen::RowVectorXd mean = sum / static_cast<double>(nodes);
  for (const features::TaskGraph* graph : graphs) {
    const Eigen::MatrixXd centred = rawFeatureMatrix(*graph).cast<double>().rowwise() - mean;
    sumOfSquares += centred.array().square().matrix().colwise().sum();
  }
  Eigen::RowVectorXd deviation = (sumOfSquares / static_cast<double>(nodes)).cwiseSqrt();
  for (Eigen::Index column = 0; column < deviation.size(); ++column)
    if (!(deviation(column) > 1e-12))
      deviation(column) = 1.0;
  mean_ = mean.cast<float>();
  standardDeviation_ = deviation.cast<float>();
}

nn::Matrix FeatureStandardizer::standardize(const features::TaskGraph& graph) const {
  assert(fitted());
  if (static_cast<int>(graph.featureCount) != featureCount())
    throw Error("task graph '" + graph.anchor + "' has " + std::to_string(graph.featureCount) +
                " features, the feature statistics have " + std::to_string(featureCount()));
  nn::Matrix result = rawFeatureMatrix(graph);
  result.rowwise() -= mean_.row(0);
  result.array().rowwise() /= standardDeviation_.row(0).array();
  return result;
}

} // namespace clustune::gae
