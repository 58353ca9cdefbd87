// The subgradient at 0 is taken as 0, as PyTorch does, so a dead unit passes no gradient.
#include "nn/Relu.h"

#include <cassert>
#include <utility>

namespace clustune::nn {

Matrix Relu::forward(Matrix input) {
  lastOutput_ = std::move(input);
  lastOutput_ = lastOutput_.cwiseMax(0.0f);
  return lastOutput_;
}

Matrix Relu::backward(const Matrix& outputGradient) {
  assert(outputGradient.rows() == lastOutput_.rows());
  assert(outputGradient.cols() == lastOutput_.cols());
  return (lastOutput_.array() > 0.0f).select(outputGradient.array(), 0.0f).matrix();
}

Matrix Relu::infer(const Matrix& input) {
  return input.cwiseMax(0.0f);
}

} // namespace clustune::nn
