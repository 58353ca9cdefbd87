// The Dense layer: hand-computed outputs, PyTorch's initialisation drawn reproducibly from a seed,
// gradients against finite differences, and the multi-threaded product path against Eigen.
#include "GradientCheckSupport.h"
#include "nn/Dense.h"
#include "runtime/ThreadPool.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace clustune;
using namespace clustune::nn;
using namespace clustune::nn::testing;

TEST(NnDense, ForwardMatchesHandComputedExample) {
  Rng rng(1);
  Dense dense("layer", 2, 3, rng);
  dense.weight().value << 1, 2, 3, //
      -1, 0, 0.5;
  dense.bias().value << 0.5, -1, 2;
  Matrix input(2, 2);
  input << 1, 2, //
      -3, 0.5;
  // Row 0: [1·1 + 2·(-1), 1·2 + 2·0, 1·3 + 2·0.5] + b = [-1, 2, 4] + [0.5, -1, 2].
  // Row 1: [-3 - 0.5, -6 + 0, -9 + 0.25] + b.
  Matrix expected(2, 3);
  expected << -0.5f, 1, 6, //
      -3.0f, -7, -6.75f;
  EXPECT_TRUE(dense.forward(input).isApprox(expected, 1e-6f));
}

TEST(NnDense, ParametersAreNamedAndShapedAfterTheLayer) {
  Rng rng(1);
  Dense dense("encoder.0", 5, 7, rng);
  EXPECT_EQ(dense.inputs(), 5);
  EXPECT_EQ(dense.outputs(), 7);
  EXPECT_EQ(dense.weight().name, "encoder.0.weight");
  EXPECT_EQ(dense.bias().name, "encoder.0.bias");
  EXPECT_EQ(dense.weight().value.rows(), 5);
  EXPECT_EQ(dense.weight().value.cols(), 7);
  EXPECT_EQ(dense.bias().value.rows(), 1);
  EXPECT_EQ(dense.bias().value.cols(), 7);
  EXPECT_TRUE(dense.weight().gradient.isZero(0));
  EXPECT_TRUE(dense.bias().gradient.isZero(0));
  const std::vector<Parameter*> parameters = dense.parameters();
  ASSERT_EQ(parameters.size(), 2u);
  EXPECT_EQ(parameters[0], &dense.weight());
  EXPECT_EQ(parameters[1], &dense.bias());
}

TEST(NnDense, InitialisationIsUniformWithinPyTorchBound) {
  Rng rng(3);
  const int inputs = 16;
  Dense dense("layer", inputs, 64, rng);
  const float bound = 1.0f / std::sqrt(static_cast<float>(inputs));
  EXPECT_LE(dense.weight().value.cwiseAbs().maxCoeff(), bound);
  EXPECT_LE(dense.bias().value.cwiseAbs().maxCoeff(), bound);
  // 1024 uniform draws cover the range and centre on 0.
  EXPECT_GT(dense.weight().value.maxCoeff(), 0.9f * bound);
  EXPECT_LT(dense.weight().value.minCoeff(), -0.9f * bound);
  EXPECT_NEAR(dense.weight().value.mean(), 0.0f, 0.05f * bound);
}

TEST(NnDense, InitialisationDrawsWeightRowMajorThenBiasFromRng) {
  Rng layerRng(11), referenceRng(11);
  Dense dense("layer", 4, 3, layerRng);
  const double bound = 0.5; // 1/sqrt(4)
  for (int row = 0; row < 4; ++row)
    for (int col = 0; col < 3; ++col)
      EXPECT_EQ(dense.weight().value(row, col),
                static_cast<float>(referenceRng.uniform(-bound, bound)));
  for (int col = 0; col < 3; ++col)
    EXPECT_EQ(dense.bias().value(0, col), static_cast<float>(referenceRng.uniform(-bound, bound)));
  // The layer consumed exactly its 15 draws.
  EXPECT_EQ(layerRng.next(), referenceRng.next());
}

TEST(NnDense, SameSeedGivesIdenticalWeightsAndDifferentSeedDiffers) {
  Rng first(42), second(42), other(43);
  Dense a("layer", 8, 5, first), b("layer", 8, 5, second), c("layer", 8, 5, other);
  EXPECT_EQ(a.weight().value, b.weight().value);
  EXPECT_EQ(a.bias().value, b.bias().value);
  EXPECT_NE(a.weight().value, c.weight().value);
  EXPECT_NE(a.bias().value, c.bias().value);
}

TEST(NnDense, InferEqualsForward) {
  Rng rng(5);
  Dense dense("layer", 6, 4, rng);
  const Matrix input = randomMatrix(9, 6, rng);
  const Matrix inferred = dense.infer(input);
  EXPECT_EQ(dense.forward(input), inferred);
}

TEST(NnDense, InputWeightAndBiasGradientsMatchFiniteDifferences) {
  Rng rng(7);
  Dense dense("layer", 5, 4, rng);
  Matrix input = randomMatrix(6, 5, rng);
  const Matrix coefficients = randomMatrix(6, 4, rng);

  dense.forward(input);
  const Matrix inputGradient = dense.backward(coefficients);
  const auto loss = [&] { return weightedSum(coefficients, dense.infer(input)); };

  EXPECT_TRUE(gradientsAgree(inputGradient, numericalGradient(input, loss)));
  EXPECT_TRUE(
      gradientsAgree(dense.weight().gradient, numericalGradient(dense.weight().value, loss)));
  EXPECT_TRUE(gradientsAgree(dense.bias().gradient, numericalGradient(dense.bias().value, loss)));
}

TEST(NnDense, BackwardAddsToExistingGradients) {
  Rng rng(8);
  Dense dense("layer", 3, 2, rng);
  const Matrix input = randomMatrix(4, 3, rng);
  const Matrix outputGradient = randomMatrix(4, 2, rng);
  dense.forward(input);
  dense.backward(outputGradient);
  const Matrix weightOnce = dense.weight().gradient;
  const Matrix biasOnce = dense.bias().gradient;
  dense.backward(outputGradient);
  EXPECT_TRUE(dense.weight().gradient.isApprox(2 * weightOnce, 1e-6f));
  EXPECT_TRUE(dense.bias().gradient.isApprox(2 * biasOnce, 1e-6f));
}

TEST(NnDense, ManyRowsSplitOverThreadsMatchPlainEigenProducts) {
  // Over 64 rows per thread, ParallelProduct splits the rows over the pool; force at least two
  // threads so that the split happens on a one-core machine too.
  runtime::ThreadPool& pool = runtime::ThreadPool::global();
  const int originalThreads = pool.threadCount();
  pool.setThreadCount(std::max(originalThreads, 3));

  Rng rng(9);
  Dense dense("layer", 24, 10, rng);
  const Matrix input = randomMatrix(300, 24, rng);
  const Matrix outputGradient = randomMatrix(300, 10, rng);

  const Matrix output = dense.forward(input);
  const Matrix inputGradient = dense.backward(outputGradient);

  Matrix expectedOutput = input * dense.weight().value;
  expectedOutput.rowwise() += dense.bias().value.row(0);
  const Matrix expectedWeightGradient = input.transpose() * outputGradient;
  const Matrix expectedBiasGradient = outputGradient.colwise().sum();
  const Matrix expectedInputGradient = outputGradient * dense.weight().value.transpose();
  pool.setThreadCount(originalThreads);

  EXPECT_TRUE(output.isApprox(expectedOutput, 1e-5f));
  EXPECT_TRUE(dense.weight().gradient.isApprox(expectedWeightGradient, 1e-5f));
  EXPECT_TRUE(dense.bias().gradient.isApprox(expectedBiasGradient, 1e-5f));
  EXPECT_TRUE(inputGradient.isApprox(expectedInputGradient, 1e-5f));
}
