// The parameter-free layers and the residual block: hand-computed outputs, infer() against
// forward(), and input and parameter gradients against finite differences.
#include "GradientCheckSupport.h"
#include "nn/Relu.h"
#include "nn/ResidualBlock.h"
#include "nn/SegmentSum.h"

#include <gtest/gtest.h>
#include <vector>

using namespace clustune;
using namespace clustune::nn;
using namespace clustune::nn::testing;

TEST(NnRelu, ForwardZeroesNonPositiveEntries) {
  Relu relu;
  Matrix input(2, 3);
  input << -1, 0, 2, //
      3.5f, -0.25f, 1e-3f;
  Matrix expected(2, 3);
  expected << 0, 0, 2, //
      3.5f, 0, 1e-3f;
  EXPECT_EQ(relu.forward(input), expected);
}

TEST(NnRelu, BackwardPassesGradientOnlyWherePositiveAndZeroAtZero) {
  Relu relu;
  Matrix input(1, 4);
  input << -2, 0, 0.5f, 3;
  Matrix outputGradient(1, 4);
  outputGradient << 10, 20, 30, 40;
  relu.forward(input);
  Matrix expected(1, 4);
  expected << 0, 0, 30, 40;
  EXPECT_EQ(relu.backward(outputGradient), expected);
}

TEST(NnRelu, InputGradientMatchesFiniteDifferences) {
  Rng rng(21);
  Relu relu;
  Matrix input = randomMatrixAwayFromZero(5, 4, rng);
  const Matrix coefficients = randomMatrix(5, 4, rng);
  relu.forward(input);
  const Matrix inputGradient = relu.backward(coefficients);
  const auto loss = [&] { return weightedSum(coefficients, Relu::infer(input)); };
  EXPECT_TRUE(gradientsAgree(inputGradient, numericalGradient(input, loss)));
}

TEST(NnRelu, InferEqualsForward) {
  Rng rng(22);
  Relu relu;
  const Matrix input = randomMatrix(6, 3, rng);
  const Matrix inferred = Relu::infer(input);
  EXPECT_EQ(relu.forward(input), inferred);
}

TEST(NnResidualBlock, ForwardIsReluOfDensePlusInput) {
  Rng rng(1);
  ResidualBlock block("block", 2, rng);
  block.dense().weight().value << 1, -1, //
      2, 0.5f;
  block.dense().bias().value << 0, -4;
  Matrix input(2, 2);
  input << 1, 2, //
      -1, 3;
  // Row 0: Dense = [1 + 4, -1 + 1 - 4] = [5, -4] → ReLU [5, 0] → + [1, 2] = [6, 2].
  // Row 1: Dense = [-1 + 6, 1 + 1.5 - 4] = [5, -1.5] → ReLU [5, 0] → + [-1, 3] = [4, 3].
  Matrix expected(2, 2);
  expected << 6, 2, //
      4, 3;
  EXPECT_TRUE(block.forward(input).isApprox(expected, 1e-6f));
}

TEST(NnResidualBlock, ParametersAreTheDenseLayersNamedAfterTheBlock) {
  Rng rng(2);
  ResidualBlock block("residual.1", 8, rng);
  EXPECT_EQ(block.width(), 8);
  EXPECT_EQ(block.dense().inputs(), 8);
  EXPECT_EQ(block.dense().outputs(), 8);
  const std::vector<Parameter*> parameters = block.parameters();
  ASSERT_EQ(parameters.size(), 2u);
  EXPECT_EQ(parameters[0]->name, "residual.1.weight");
  EXPECT_EQ(parameters[1]->name, "residual.1.bias");
}

TEST(NnResidualBlock, SameSeedGivesIdenticalWeightsAndDifferentSeedDiffers) {
  Rng first(5), second(5), other(6);
  ResidualBlock a("block", 4, first), b("block", 4, second), c("block", 4, other);
  EXPECT_EQ(a.dense().weight().value, b.dense().weight().value);
  EXPECT_EQ(a.dense().bias().value, b.dense().bias().value);
  EXPECT_NE(a.dense().weight().value, c.dense().weight().value);
}

TEST(NnResidualBlock, InferEqualsForward) {
  Rng rng(3);
  ResidualBlock block("block", 5, rng);
  const Matrix input = randomMatrix(7, 5, rng);
  const Matrix inferred = block.infer(input);
  EXPECT_EQ(block.forward(input), inferred);
}

TEST(NnResidualBlock, InputWeightAndBiasGradientsMatchFiniteDifferences) {
  // Finite differences are only valid where no pre-activation crosses ReLU's kink: draw inputs
  // (deterministically, from successive seeds) until every pre-activation is clear of 0 by more
  // than any step can move it (a step of 1e-2 on a bias moves it by 1e-2, on an input or a weight
  // by less).
  const int width = 4;
  std::uint64_t seed = 100;
  for (;; ++seed) {
    Rng rng(seed);
    ResidualBlock block("block", width, rng);
    const Matrix input = randomMatrix(3, width, rng);
    if (block.dense().infer(input).cwiseAbs().minCoeff() > 5 * kFiniteDifferenceStep)
      break;
    ASSERT_LT(seed, 1100u) << "no seed gives pre-activations clear of 0";
  }
  Rng rng(seed);
  ResidualBlock block("block", width, rng);
  Matrix input = randomMatrix(3, width, rng);
  const Matrix coefficients = randomMatrix(3, width, rng);
  // Both branches must be exercised, or the check would not cover the ReLU mask.
  const Matrix preActivation = block.dense().infer(input);
  ASSERT_GT((preActivation.array() > 0).count(), 0);
  ASSERT_GT((preActivation.array() < 0).count(), 0);

  block.forward(input);
  const Matrix inputGradient = block.backward(coefficients);
  const auto loss = [&] { return weightedSum(coefficients, block.infer(input)); };
  Dense& dense = block.dense();
  EXPECT_TRUE(gradientsAgree(inputGradient, numericalGradient(input, loss)));
  EXPECT_TRUE(
      gradientsAgree(dense.weight().gradient, numericalGradient(dense.weight().value, loss)));
  EXPECT_TRUE(gradientsAgree(dense.bias().gradient, numericalGradient(dense.bias().value, loss)));
}

TEST(NnSegmentSum, ForwardSumsEachSegmentAndEmptySegmentGivesZeroRow) {
  SegmentSum segmentSum;
  Matrix rows(5, 2);
  rows << 1, 2, //
      3, 4,     //
      5, 6,     //
      7, 8,     //
      9, 10;
  const std::vector<int> offsets = {0, 2, 2, 5};
  Matrix expected(3, 2);
  expected << 4, 6, //
      0, 0,         //
      21, 24;
  EXPECT_EQ(segmentSum.forward(rows, offsets), expected);
}

TEST(NnSegmentSum, BackwardGivesEachRowItsSegmentsGradient) {
  SegmentSum segmentSum;
  const Matrix rows = Matrix::Ones(4, 2);
  const std::vector<int> offsets = {0, 1, 1, 4};
  segmentSum.forward(rows, offsets);
  Matrix segmentGradient(3, 2);
  segmentGradient << 1, -1, //
      100, 200,             //
      0.5f, 2;
  Matrix expected(4, 2);
  expected << 1, -1, //
      0.5f, 2,       //
      0.5f, 2,       //
      0.5f, 2;
  EXPECT_EQ(segmentSum.backward(segmentGradient), expected);
}

TEST(NnSegmentSum, InputGradientMatchesFiniteDifferences) {
  Rng rng(31);
  SegmentSum segmentSum;
  Matrix rows = randomMatrix(7, 3, rng);
  const std::vector<int> offsets = {0, 3, 3, 4, 7};
  const Matrix coefficients = randomMatrix(4, 3, rng);
  segmentSum.forward(rows, offsets);
  const Matrix rowGradient = segmentSum.backward(coefficients);
  const auto loss = [&] { return weightedSum(coefficients, SegmentSum::infer(rows, offsets)); };
  EXPECT_TRUE(gradientsAgree(rowGradient, numericalGradient(rows, loss)));
}

TEST(NnSegmentSum, InferEqualsForward) {
  Rng rng(32);
  SegmentSum segmentSum;
  const Matrix rows = randomMatrix(6, 4, rng);
  const std::vector<int> offsets = {0, 0, 6};
  const Matrix inferred = SegmentSum::infer(rows, offsets);
  EXPECT_EQ(segmentSum.forward(rows, offsets), inferred);
}

TEST(NnSegmentSum, NoRowsAndNoSegmentsGiveEmptyResult) {
  const Matrix rows(0, 3);
  const std::vector<int> offsets = {0};
  const Matrix sums = SegmentSum::infer(rows, offsets);
  EXPECT_EQ(sums.rows(), 0);
  EXPECT_EQ(sums.cols(), 3);
}
