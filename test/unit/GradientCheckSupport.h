// Finite-difference gradient checks for the neural-network kit's tests: every layer and loss
// compares its analytic gradients with central differences of a scalar loss. Layers are reduced
// to a scalar as Σ c_ij · y_ij with fixed random c, so that every output entry contributes with
// its own weight and a gradient that is wrong in one entry (or transposed) cannot cancel out.
// Steps of 1e-2 on float values of order 1 keep rounding error well below the 1e-2 tolerance;
// the scalar is accumulated in double for the same reason.
#pragma once

#include "nn/Parameter.h"
#include "support/Random.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <gtest/gtest.h>
#include <sstream>

namespace clustune::nn::testing {

constexpr float kFiniteDifferenceStep = 1e-2f;
constexpr double kGradientRelativeTolerance = 1e-2;

// Entries uniform in [low, high].
inline Matrix randomMatrix(Eigen::Index rows, Eigen::Index cols, Rng& rng, double low = -1.0,
                           double high = 1.0) {
  Matrix result(rows, cols);
  for (Eigen::Index row = 0; row < rows; ++row)
    for (Eigen::Index col = 0; col < cols; ++col)
      result(row, col) = static_cast<float>(rng.uniform(low, high));
  return result;
}

// Entries with magnitude in [0.2, 1] and a random sign: clear of ReLU's kink at 0 by more than a
// finite-difference step.
inline Matrix randomMatrixAwayFromZero(Eigen::Index rows, Eigen::Index cols, Rng& rng) {
  Matrix result = randomMatrix(rows, cols, rng, 0.2, 1.0);
  for (Eigen::Index row = 0; row < rows; ++row)
    for (Eigen::Index col = 0; col < cols; ++col)
      if (rng.uniform() < 0.5)
        result(row, col) = -result(row, col);
  return result;
}

// Σ c_ij · y_ij in double: the scalar through which a layer's gradients are checked. Its
// gradient with respect to y is c itself.
inline double weightedSum(const Matrix& coefficients, const Matrix& values) {
  return (coefficients.cast<double>().array() * values.cast<double>().array()).sum();
}

// The central-difference gradient of `loss` with respect to every entry of `point`, which
// `loss` must read (a layer's parameter value or the input it is called with). `point` is
// restored afterwards. The denominator is the float difference actually applied.
template <class Tensor>
Tensor numericalGradient(Tensor& point, const std::function<double()>& loss,
                         float step = kFiniteDifferenceStep) {
  Tensor gradient(point.rows(), point.cols());
  for (Eigen::Index row = 0; row < point.rows(); ++row) {
    for (Eigen::Index col = 0; col < point.cols(); ++col) {
      const float original = point(row, col);
      const float above = original + step;
      const float below = original - step;
      point(row, col) = above;
      const double lossAbove = loss();
      point(row, col) = below;
      const double lossBelow = loss();
      point(row, col) = original;
      gradient(row, col) =
          static_cast<float>((lossAbove - lossBelow) / (static_cast<double>(above) - below));
    }
  }
  return gradient;
}

// Every entry agrees within `relativeTolerance` of the larger of the two values, plus a floor
// of a tenth of that tolerance times the largest numerical entry (so entries that are zero up to
// rounding pass, and an entry that is wrong by a visible fraction of the gradient fails).
template <class Tensor>
::testing::AssertionResult gradientsAgree(const Tensor& analytic, const Tensor& numerical,
                                          double relativeTolerance = kGradientRelativeTolerance) {
  if (analytic.rows() != numerical.rows() || analytic.cols() != numerical.cols())
    return ::testing::AssertionFailure() << "shape " << analytic.rows() << "x" << analytic.cols()
                                         << " vs " << numerical.rows() << "x" << numerical.cols();
  const double largest = std::max(1e-6, static_cast<double>(numerical.cwiseAbs().maxCoeff()));
  for (Eigen::Index row = 0; row < analytic.rows(); ++row) {
    for (Eigen::Index col = 0; col < analytic.cols(); ++col) {
      const double exact = analytic(row, col);
      const double estimate = numerical(row, col);
      const double allowed = relativeTolerance * std::max(std::abs(exact), std::abs(estimate)) +
                             0.1 * relativeTolerance * largest;
      if (!(std::abs(exact - estimate) <= allowed))
        return ::testing::AssertionFailure()
               << "entry (" << row << ", " << col << "): analytic " << exact
               << ", finite difference " << estimate << ", allowed difference " << allowed;
    }
  }
  return ::testing::AssertionSuccess();
}

} // namespace clustune::nn::testing
