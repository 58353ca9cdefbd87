// Adam: updates against hand-computed values (bias correction, clipping, weight decay and their
// order), errors on non-finite gradients, and a small regression trained to convergence. An
// epsilon of 1 makes a first step depend on the gradient's magnitude (lr·g / (|g| + 1)), which
// is what lets the clipping and decay tests see the gradient that Adam actually used.
#include "nn/Adam.h"
#include "nn/Dense.h"
#include "nn/Loss.h"
#include "support/Error.h"
#include "support/Random.h"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>

using namespace clustune;
using namespace clustune::nn;

namespace {

Parameter scalarParameter(const std::string& name, float value, float gradient) {
  Parameter parameter(name, Matrix::Constant(1, 1, value));
  parameter.gradient(0, 0) = gradient;
  return parameter;
}

AdamOptions plainOptions(float learningRate) {
  AdamOptions options;
  options.learningRate = learningRate;
  options.weightDecay = 0;
  options.gradientClipNorm = 0;
  return options;
}

} // namespace

TEST(NnAdam, TwoStepsMatchHandComputedBiasCorrectedUpdates) {
  Parameter parameter = scalarParameter("p", 1.0f, 0.5f);
  Adam adam({&parameter}, plainOptions(0.1f));
  // Step 1: m = 0.05, v = 0.00025, m̂ = 0.5, v̂ = 0.25: update 0.1 · 0.5 / (0.5 + 1e-8).
  adam.step();
  EXPECT_NEAR(parameter.value(0, 0), 0.900000002, 1e-6);
  // Step 2 with g = -0.2: m = 0.025, v = 0.00028975, m̂ = 0.025 / 0.19, v̂ = 0.00028975 / 0.001999.
  parameter.gradient(0, 0) = -0.2f;
  adam.step();
  EXPECT_NEAR(parameter.value(0, 0), 0.8654394181165108, 1e-6);
  EXPECT_EQ(adam.steps(), 2);
}

TEST(NnAdam, StepZeroesGradientsAndCountsSteps) {
  Parameter first("first", Matrix::Ones(2, 3));
  Parameter second("second", Matrix::Ones(1, 3));
  first.gradient.setConstant(0.1f);
  second.gradient.setConstant(-0.3f);
  Adam adam({&first, &second});
  EXPECT_EQ(adam.steps(), 0);
  adam.step();
  EXPECT_EQ(adam.steps(), 1);
  EXPECT_TRUE(first.gradient.isZero(0));
  EXPECT_TRUE(second.gradient.isZero(0));
  first.gradient.setConstant(1);
  adam.zeroGradients();
  EXPECT_TRUE(first.gradient.isZero(0));
}

TEST(NnAdam, ClippingScalesGradientsByClipOverGlobalNorm) {
  // Gradients 3 and 4 in two parameters: global norm 5, clipped to 0.5 → 0.3 and 0.4.
  Parameter first = scalarParameter("first", 0, 3);
  Parameter second = scalarParameter("second", 0, 4);
  AdamOptions options = plainOptions(0.1f);
  options.epsilon = 1;
  options.gradientClipNorm = 0.5f;
  Adam adam({&first, &second}, options);
  adam.step();
  EXPECT_NEAR(adam.lastGradientNorm(), 5.0, 1e-9);
  const double scale = 0.5 / (5 + 1e-6);
  EXPECT_NEAR(first.value(0, 0), -0.1 * (3 * scale) / (3 * scale + 1), 1e-7);
  EXPECT_NEAR(second.value(0, 0), -0.1 * (4 * scale) / (4 * scale + 1), 1e-7);
}

TEST(NnAdam, GradientsBelowClipNormAreNotScaled) {
  Parameter first = scalarParameter("first", 0, 3);
  Parameter second = scalarParameter("second", 0, 4);
  AdamOptions options = plainOptions(0.1f);
  options.epsilon = 1;
  options.gradientClipNorm = 10;
  Adam adam({&first, &second}, options);
  adam.step();
  EXPECT_NEAR(adam.lastGradientNorm(), 5.0, 1e-9);
  EXPECT_NEAR(first.value(0, 0), -0.1 * 3 / 4, 1e-7);
  EXPECT_NEAR(second.value(0, 0), -0.1 * 4 / 5, 1e-7);
}

TEST(NnAdam, WeightDecayIsAddedToTheGradient) {
  // g = 0.5 + 0.1 · 2 = 0.7: update 0.1 · 0.7 / (0.7 + 1).
  Parameter parameter = scalarParameter("p", 2, 0.5f);
  AdamOptions options = plainOptions(0.1f);
  options.epsilon = 1;
  options.weightDecay = 0.1f;
  Adam adam({&parameter}, options);
  adam.step();
  EXPECT_NEAR(parameter.value(0, 0), 2 - 0.1 * 0.7 / 1.7, 1e-6);
}

TEST(NnAdam, WeightDecayIsAddedAfterClipping) {
  // Clipping first: 10 → 1/(1 + 1e-7) ≈ 1, plus 0.1 · 2 = 1.2; clipping after decay would give 1.
  Parameter parameter = scalarParameter("p", 2, 10);
  AdamOptions options = plainOptions(0.1f);
  options.epsilon = 1;
  options.weightDecay = 0.1f;
  options.gradientClipNorm = 1;
  Adam adam({&parameter}, options);
  adam.step();
  EXPECT_NEAR(parameter.value(0, 0), 2 - 0.1 * 1.2 / 2.2, 1e-6);
}

TEST(NnAdam, SetLearningRateChangesTheNextStep) {
  Parameter parameter = scalarParameter("p", 0, 1);
  Adam adam({&parameter}, plainOptions(0.1f));
  adam.setLearningRate(0.25f);
  adam.step();
  // A first step moves by the learning rate times the gradient's sign.
  EXPECT_NEAR(parameter.value(0, 0), -0.25, 1e-6);
}

TEST(NnAdam, NonFiniteGradientThrowsNamingTheParameterAndUpdatesNothing) {
  Parameter good = scalarParameter("layer.weight", 1, 0.5f);
  Parameter bad = scalarParameter("layer.bias", 1, std::numeric_limits<float>::quiet_NaN());
  Adam adam({&good, &bad});
  try {
    adam.step();
    FAIL() << "no error";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("layer.bias"), std::string::npos) << message;
    EXPECT_NE(message.find("non-finite"), std::string::npos) << message;
  }
  EXPECT_EQ(good.value(0, 0), 1);
  EXPECT_EQ(bad.value(0, 0), 1);
  EXPECT_EQ(adam.steps(), 0);
  bad.gradient(0, 0) = std::numeric_limits<float>::infinity();
  EXPECT_THROW(adam.step(), Error);
}

TEST(NnAdam, TrainsDenseLinearRegressionBelowMeanSquaredError1e3) {
  // y = 1·x0 - 2·x1 + 0.5·x2 + 0.3, learnt exactly by one Dense layer.
  Rng rng(51);
  const int samples = 64;
  Matrix inputs(samples, 3);
  Vector labels(samples);
  for (int row = 0; row < samples; ++row) {
    for (int col = 0; col < 3; ++col)
      inputs(row, col) = static_cast<float>(rng.uniform(-1, 1));
    labels[row] = inputs(row, 0) - 2 * inputs(row, 1) + 0.5f * inputs(row, 2) + 0.3f;
  }
  Dense dense("regression", 3, 1, rng);
  AdamOptions options;
  options.learningRate = 0.02f;
  Adam adam(dense.parameters(), options);
  const double initialLoss = meanSquaredError(dense.infer(inputs).col(0), labels).value;
  for (int step = 0; step < 1500; ++step) {
    if (step == 1000)
      adam.setLearningRate(0.005f);
    const Matrix predictions = dense.forward(inputs);
    const LossValue loss = meanSquaredError(predictions.col(0), labels);
    dense.backward(Matrix(loss.gradient));
    adam.step();
  }
  const double finalLoss = meanSquaredError(dense.infer(inputs).col(0), labels).value;
  EXPECT_GT(initialLoss, 0.5);
  EXPECT_LT(finalLoss, 1e-3);
  EXPECT_NEAR(dense.weight().value(1, 0), -2, 0.05);
  EXPECT_NEAR(dense.bias().value(0, 0), 0.3, 0.05);
}
