// Dense's products run through nn::multiply / multiplyTransposedLeft (split over the global thread
// pool); the bias broadcast and column sums are cheap enough to stay on the calling thread.
#include "nn/Dense.h"

#include "nn/ParallelProduct.h"

#include <cassert>
#include <cmath>
#include <utility>

namespace clustune::nn {
namespace {

Matrix uniformMatrix(Eigen::Index rows, Eigen::Index cols, double bound, Rng& rng) {
  Matrix result(rows, cols);
  for (Eigen::Index row = 0; row < rows; ++row)
    for (Eigen::Index col = 0; col < cols; ++col)
      result(row, col) = static_cast<float>(rng.uniform(-bound, bound));
  return result;
}

} // namespace

Dense::Dense(std::string name, int inputs, int outputs, Rng& rng) {
  assert(inputs > 0 && outputs > 0);
  const double bound = 1.0 / std::sqrt(static_cast<double>(inputs));
  // The weight is drawn before the bias, row by row: the documented order that a seed pins.
  Matrix weight = uniformMatrix(inputs, outputs, bound, rng);
  Matrix bias = uniformMatrix(1, outputs, bound, rng);
  weight_ = Parameter(name + ".weight", std::move(weight));
  bias_ = Parameter(name + ".bias", std::move(bias));
}

Matrix Dense::forward(Matrix input) {
  lastInput_ = std::move(input);
  return infer(lastInput_);
}

Matrix Dense::backward(const Matrix& outputGradient) {
  accumulateGradients(outputGradient);
  return multiply(outputGradient, Matrix(weight_.value.transpose()));
}

void Dense::accumulateGradients(const Matrix& outputGradient) {
  assert(outputGradient.rows() == lastInput_.rows());
  assert(outputGradient.cols() == outputs());
  weight_.gradient += multiplyTransposedLeft(lastInput_, outputGradient);
  bias_.gradient += outputGradient.colwise().sum();
}

Matrix Dense::infer(const Matrix& input) const {
  assert(input.cols() == inputs());
  Matrix output = multiply(input, weight_.value);
  output.rowwise() += bias_.value.row(0);
  return output;
}

} // namespace clustune::nn
