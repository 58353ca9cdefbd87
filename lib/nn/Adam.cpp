// Follows PyTorch's arithmetic step for step (moments in float, bias corrections and the global
// norm in double), so that a model trained here behaves like Tenset's reference training.
#include "nn/Adam.h"

#include "support/Error.h"

#include <cassert>
#include <cmath>

namespace clustune::nn {

Adam::Adam(std::vector<Parameter*> parameters, AdamOptions options)
    : parameters_(std::move(parameters)), options_(options) {
  for (const Parameter* parameter : parameters_) {
    assert(parameter != nullptr);
    firstMoments_.push_back(Matrix::Zero(parameter->value.rows(), parameter->value.cols()));
    secondMoments_.push_back(Matrix::Zero(parameter->value.rows(), parameter->value.cols()));
  }
}

void Adam::step() {
  double squaredNorm = 0;
  for (const Parameter* parameter : parameters_) {
    assert(parameter->gradient.rows() == parameter->value.rows());
    assert(parameter->gradient.cols() == parameter->value.cols());
    if (!parameter->gradient.allFinite())
      throw Error("Adam: non-finite gradient in parameter '" + parameter->name + "'");
    squaredNorm += parameter->gradient.cast<double>().squaredNorm();
  }
  lastGradientNorm_ = std::sqrt(squaredNorm);

  // As clip_grad_norm_: the scale is applied only when it shrinks the gradients.
  if (options_.gradientClipNorm > 0) {
    const double scale = options_.gradientClipNorm / (lastGradientNorm_ + 1e-6);
    if (scale < 1.0)
      for (Parameter* parameter : parameters_)
        parameter->gradient *= static_cast<float>(scale);
  }

  ++steps_;
  const double biasCorrection1 = 1.0 - std::pow(static_cast<double>(options_.beta1), steps_);
  const double biasCorrection2 = 1.0 - std::pow(static_cast<double>(options_.beta2), steps_);
  const auto stepSize = static_cast<float>(options_.learningRate / biasCorrection1);
  const auto inverseRootCorrection2 = static_cast<float>(1.0 / std::sqrt(biasCorrection2));
  for (std::size_t index = 0; index < parameters_.size(); ++index) {
    Parameter& parameter = *parameters_[index];
    Matrix& first = firstMoments_[index];
    Matrix& second = secondMoments_[index];
    if (options_.weightDecay != 0)
      parameter.gradient += options_.weightDecay * parameter.value;
    first = options_.beta1 * first + (1.0f - options_.beta1) * parameter.gradient;
    second = options_.beta2 * second +
             (1.0f - options_.beta2) * parameter.gradient.cwiseProduct(parameter.gradient);
    const Matrix denominator =
        (second.cwiseSqrt() * inverseRootCorrection2).array() + options_.epsilon;
    parameter.value -= stepSize * first.cwiseQuotient(denominator);
  }
  zeroGradients();
}

void Adam::zeroGradients() {
  for (Parameter* parameter : parameters_)
    parameter->gradient.setZero();
}

} // namespace clustune::nn
