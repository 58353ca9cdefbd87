// Â·H is formed first and H·W second: that keeps Â·H, which the weight gradient needs, and the
// sparse product runs on the narrower of the two sides for the first layer (features are few).
#include "gae/GcnLayer.h"

#include "nn/ParallelProduct.h"

#include <cassert>
#include <cmath>

namespace clustune::gae {

GcnLayer::GcnLayer(std::string name, int inputs, int outputs, Rng& rng) {
  assert(inputs > 0 && outputs > 0);
  const double limit = std::sqrt(6.0 / static_cast<double>(inputs + outputs));
  nn::Matrix weight(inputs, outputs);
  for (int row = 0; row < inputs; ++row)
    for (int col = 0; col < outputs; ++col)
      weight(row, col) = static_cast<float>(rng.uniform(-limit, limit));
  weight_ = nn::Parameter(name + ".weight", std::move(weight));
}

nn::Matrix GcnLayer::forward(const AdjacencyMatrix& adjacency, const nn::Matrix& input) {
  assert(adjacency.rows() == input.rows() && adjacency.cols() == input.rows());
  assert(input.cols() == inputs());
  lastAdjacency_ = adjacency;
  lastAggregated_ = adjacency * input;
  return nn::multiply(lastAggregated_, weight_.value);
}

nn::Matrix GcnLayer::backward(const nn::Matrix& outputGradient) {
  assert(outputGradient.rows() == lastAggregated_.rows());
  assert(outputGradient.cols() == outputs());
  weight_.gradient += nn::multiplyTransposedLeft(lastAggregated_, outputGradient);
  const nn::Matrix throughWeight =
      nn::multiply(outputGradient, nn::Matrix(weight_.value.transpose()));
  return nn::Matrix(lastAdjacency_.transpose() * throughWeight);
}

nn::Matrix GcnLayer::infer(const AdjacencyMatrix& adjacency, const nn::Matrix& input) const {
  assert(adjacency.rows() == input.rows() && adjacency.cols() == input.rows());
  assert(input.cols() == inputs());
  const nn::Matrix aggregated = adjacency * input;
  return nn::multiply(aggregated, weight_.value);
}

} // namespace clustune::gae
