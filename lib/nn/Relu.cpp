// The subgradient at 0 is taken as 0, as PyTorch does, so a dead unit passes no gradient.
#include "nn/Relu.h"

#include <cassert>

namespace clustune::nn {

Matrix Relu::forward(const Matrix& input) {
  lastInput_ = input;
  return infer(input);
}

Matrix Relu::backward(const Matrix& outputGradient) {
  assert(outputGradient.rows() == lastInput_.rows());
  assert(outputGradient.cols() == lastInput_.cols());
  return (lastInput_.array() > 0.0f)
      .select(outputGradient, Matrix::Zero(outputGradient.rows(), outputGradient.cols()));
}

Matrix Relu::infer(const Matrix& input) {
  return input.cwiseMax(0.0f);
}

} // namespace clustune::nn
