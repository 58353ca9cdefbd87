// The training losses: values on hand-computed lists, gradients against finite differences
// (with predictions far enough apart that a step never reorders them, since LambdaRank's weights
// depend on the order), edge cases, and non-finite inputs rejected rather than turned into NaN.
#include "GradientCheckSupport.h"
#include "nn/Loss.h"
#include "support/Error.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <numeric>
#include <vector>

using namespace clustune;
using namespace clustune::nn;
using namespace clustune::nn::testing;

namespace {

Vector vectorOf(std::initializer_list<float> values) {
  Vector result(static_cast<Eigen::Index>(values.size()));
  Eigen::Index index = 0;
  for (float value : values)
    result[index++] = value;
  return result;
}

// Distinct predictions at least 0.1 apart (so a finite-difference step of 1e-2 keeps the order)
// in a random order, and random labels in [0, 1] (normalised throughputs).
void randomList(int count, Rng& rng, Vector& predictions, Vector& labels) {
  std::vector<int> order(static_cast<std::size_t>(count));
  std::iota(order.begin(), order.end(), 0);
  rng.shuffle(order);
  predictions.resize(count);
  labels.resize(count);
  for (int index = 0; index < count; ++index) {
    predictions[index] = static_cast<float>(0.15 * order[static_cast<std::size_t>(index)] - 0.5 +
                                            rng.uniform(-0.02, 0.02));
    labels[index] = static_cast<float>(rng.uniform(0.0, 1.0));
  }
}

using LossFunction = LossValue (*)(const Vector&, const Vector&);

::testing::AssertionResult gradientMatchesFiniteDifferences(LossFunction lossFunction,
                                                            Vector predictions,
                                                            const Vector& labels) {
  const Vector analytic = lossFunction(predictions, labels).gradient;
  const auto loss = [&] { return lossFunction(predictions, labels).value; };
  return gradientsAgree(analytic, numericalGradient(predictions, loss));
}

LossValue lambdaRankWithDefaultSigma(const Vector& predictions, const Vector& labels) {
  return lambdaRank(predictions, labels);
}

LossValue rankNetWithDefaultSigma(const Vector& predictions, const Vector& labels) {
  return rankNet(predictions, labels);
}

double sigmoid(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}

} // namespace

TEST(NnMeanSquaredError, ValueAndGradientOnHandExample) {
  // Differences 1, -2, 0.5: mean of squares (1 + 4 + 0.25) / 3, gradient 2·d/3.
  const LossValue loss = meanSquaredError(vectorOf({2, -1, 0.5f}), vectorOf({1, 1, 0}));
  EXPECT_NEAR(loss.value, 5.25 / 3, 1e-9);
  ASSERT_EQ(loss.gradient.size(), 3);
  EXPECT_NEAR(loss.gradient[0], 2.0 / 3, 1e-6);
  EXPECT_NEAR(loss.gradient[1], -4.0 / 3, 1e-6);
  EXPECT_NEAR(loss.gradient[2], 1.0 / 3, 1e-6);
}

TEST(NnMeanSquaredError, GradientMatchesFiniteDifferences) {
  Rng rng(41);
  Vector predictions, labels;
  randomList(9, rng, predictions, labels);
  EXPECT_TRUE(gradientMatchesFiniteDifferences(meanSquaredError, predictions, labels));
}

TEST(NnLambdaRank, ThreeItemValueMatchesHandComputation) {
  // Predictions rank item 1 first, item 2 second, item 0 third: D = 1, log2(3), 2 for ranks
  // 1, 2, 3. Labels 2, 0, 1: maxDCG = 3/1 + 1/log2(3) + 0 = 3.63093;
  // G = 3/maxDCG (item 0), 0 (item 1), 1/maxDCG (item 2).
  // Pairs with label_i > label_j and their weights |1/D(r_i) - 1/D(r_j)|·|G_i - G_j|:
  //   (0, 1): |1/2 - 1| · 0.826235 = 0.413117, score difference 0.5 - 2 = -1.5
  //   (0, 2): |1/2 - 1/log2(3)| · 0.550823 = 0.072119, score difference 0.5 - 1 = -0.5
  //   (2, 1): |1/log2(3) - 1| · 0.275412 = 0.101646, score difference 1 - 2 = -1
  // loss = -Σ w·log2(σ(difference)) = 1.3079776 (also computed independently in Python).
  const LossValue loss = lambdaRank(vectorOf({0.5f, 2, 1}), vectorOf({2, 0, 1}));
  EXPECT_NEAR(loss.value, 1.3079775755665333, 1e-6);
  const double expected = -(0.41311732856427996 * std::log2(sigmoid(-1.5)) +
                            0.07211913336669337 * std::log2(sigmoid(-0.5)) +
                            0.10164620950474663 * std::log2(sigmoid(-1.0)));
  EXPECT_NEAR(loss.value, expected, 1e-6);
  // Raising the best item's score and lowering the worst's lowers the loss.
  EXPECT_LT(loss.gradient[0], 0);
  EXPECT_GT(loss.gradient[1], 0);
  EXPECT_NEAR(loss.gradient.sum(), 0, 1e-6);
}

TEST(NnLambdaRank, TiedPredictionsAreRankedInIndexOrder) {
  // All scores equal: the stable sort keeps items 0, 1, 2 at ranks 1, 2, 3, so the only relevant
  // item (2, G = 1 since maxDCG = 1) sits at rank 3. Each pair has σ(0) = 1/2, -log2 = 1, so
  // loss = |1/2 - 1| + |1/2 - 1/log2(3)| = 1/log2(3). Ranked first, it would be 0.5 + 0.36907.
  const LossValue loss = lambdaRank(vectorOf({0.3f, 0.3f, 0.3f}), vectorOf({0, 0, 1}));
  EXPECT_NEAR(loss.value, 1.0 / std::log2(3.0), 1e-6);
}

TEST(NnLambdaRank, GradientMatchesFiniteDifferencesWithDistinctPredictions) {
  Rng rng(42);
  for (int list = 0; list < 3; ++list) {
    Vector predictions, labels;
    randomList(10, rng, predictions, labels);
    EXPECT_TRUE(gradientMatchesFiniteDifferences(lambdaRankWithDefaultSigma, predictions, labels))
        << "list " << list;
  }
}

TEST(NnLambdaRank, SigmaScalesTheScoreDifferences) {
  Rng rng(43);
  Vector predictions, labels;
  randomList(6, rng, predictions, labels);
  const LossValue withSigma = lambdaRank(predictions, labels, 2.5f);
  const LossValue scaledScores = lambdaRank(Vector(2.5f * predictions), labels, 1.0f);
  EXPECT_NEAR(withSigma.value, scaledScores.value, 1e-5);
  EXPECT_TRUE(withSigma.gradient.isApprox(2.5f * scaledScores.gradient, 1e-5f));
}

TEST(NnLambdaRank, CorrectOrderCostsLessThanReversedOrder) {
  const Vector labels = vectorOf({0.1f, 0.9f, 0.5f, 0.0f});
  const double correct = lambdaRank(labels, labels).value;
  const double reversed = lambdaRank(Vector(-labels), labels).value;
  EXPECT_LT(correct, reversed);
  EXPECT_GT(correct, 0);
}

TEST(NnLambdaRank, FewerThanTwoItemsGiveZeroValueAndGradient) {
  const LossValue empty = lambdaRank(Vector(), Vector());
  EXPECT_EQ(empty.value, 0);
  EXPECT_EQ(empty.gradient.size(), 0);
  const LossValue single = lambdaRank(vectorOf({3}), vectorOf({1}));
  EXPECT_EQ(single.value, 0);
  ASSERT_EQ(single.gradient.size(), 1);
  EXPECT_EQ(single.gradient[0], 0);
}

TEST(NnLambdaRank, HopelessPairIsClampedLikeTensetWithoutGradient) {
  // σ(-100) < 1e-10: the probability is clamped, the loss is finite and the clamp passes no
  // gradient. With labels 1, 0 the weight is |1 - 1/log2(3)| · 1.
  const LossValue loss = lambdaRank(vectorOf({-50, 50}), vectorOf({1, 0}));
  const double weight = 1.0 - 1.0 / std::log2(3.0);
  EXPECT_NEAR(loss.value, -weight * std::log2(1e-10), 1e-6);
  EXPECT_EQ(loss.gradient[0], 0);
  EXPECT_EQ(loss.gradient[1], 0);
}

TEST(NnLambdaRank, ListOf512IsFiniteAndBalanced) {
  Rng rng(44);
  Vector predictions(512), labels(512);
  for (int index = 0; index < 512; ++index) {
    predictions[index] = static_cast<float>(rng.normal());
    labels[index] = static_cast<float>(rng.uniform());
  }
  const LossValue loss = lambdaRank(predictions, labels);
  EXPECT_TRUE(std::isfinite(loss.value));
  EXPECT_TRUE(loss.gradient.allFinite());
  EXPECT_NEAR(loss.gradient.cast<double>().sum(), 0, 1e-5);
}

TEST(NnRankNet, ValueOnHandExample) {
  // Labels 1, 0, 0.5 give the pairs (0, 1), (0, 2), (2, 1) with score differences 1, 2, -1:
  // mean of log(1 + e^-1), log(1 + e^-2), log(1 + e^1) = (0.313262 + 0.126928 + 1.313262) / 3.
  const LossValue loss = rankNet(vectorOf({1, 0, -1}), vectorOf({1, 0, 0.5f}));
  EXPECT_NEAR(loss.value, 0.5844837953598061, 1e-6);
  // d/ds_0 = -(σ(-1) + σ(-2)) / 3; d/ds_1 = (σ(-1) + σ(1)) / 3 = 1/3; d/ds_2 = (σ(-2) - σ(1)) / 3.
  EXPECT_NEAR(loss.gradient[0], -(sigmoid(-1) + sigmoid(-2)) / 3, 1e-6);
  EXPECT_NEAR(loss.gradient[1], 1.0 / 3, 1e-6);
  EXPECT_NEAR(loss.gradient[2], (sigmoid(-2) - sigmoid(1)) / 3, 1e-6);
}

TEST(NnRankNet, GradientMatchesFiniteDifferences) {
  Rng rng(45);
  Vector predictions, labels;
  randomList(8, rng, predictions, labels);
  EXPECT_TRUE(gradientMatchesFiniteDifferences(rankNetWithDefaultSigma, predictions, labels));
  const auto sharpRankNet = [](const Vector& scores, const Vector& targets) {
    return rankNet(scores, targets, 3.0f);
  };
  EXPECT_TRUE(gradientMatchesFiniteDifferences(sharpRankNet, predictions, labels));
}

TEST(NnRankNet, NoPairWithDifferentLabelsGivesZero) {
  const LossValue loss = rankNet(vectorOf({1, 2, 3}), vectorOf({0.5f, 0.5f, 0.5f}));
  EXPECT_EQ(loss.value, 0);
  EXPECT_TRUE(loss.gradient.isZero(0));
}

TEST(NnRankNet, LargeMarginsStayFinite) {
  const LossValue loss = rankNet(vectorOf({-1000, 1000}), vectorOf({1, 0}));
  EXPECT_NEAR(loss.value, 2000, 1e-3);
  EXPECT_NEAR(loss.gradient[0], -1, 1e-6);
  EXPECT_NEAR(loss.gradient[1], 1, 1e-6);
  const LossValue easy = rankNet(vectorOf({1000, -1000}), vectorOf({1, 0}));
  EXPECT_EQ(easy.value, 0);
  EXPECT_TRUE(easy.gradient.allFinite());
}

TEST(NnLoss, NonFinitePredictionOrLabelThrows) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float infinity = std::numeric_limits<float>::infinity();
  const Vector good = vectorOf({1, 2});
  for (const Vector& bad : {vectorOf({nan, 1}), vectorOf({1, infinity})}) {
    for (LossFunction loss :
         {LossFunction(meanSquaredError), LossFunction(lambdaRankWithDefaultSigma),
          LossFunction(rankNetWithDefaultSigma)}) {
      EXPECT_THROW(loss(bad, good), Error);
      EXPECT_THROW(loss(good, bad), Error);
    }
  }
  try {
    lambdaRank(vectorOf({1, nan}), good);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("non-finite"), std::string::npos) << error.what();
  }
}

TEST(NnLoss, MismatchedSizesThrow) {
  EXPECT_THROW(meanSquaredError(vectorOf({1, 2}), vectorOf({1})), Error);
  EXPECT_THROW(lambdaRank(vectorOf({1, 2}), vectorOf({1})), Error);
  EXPECT_THROW(rankNet(vectorOf({1, 2}), vectorOf({1})), Error);
}

// The pair loop runs in chunks of items on the thread pool once a list is long enough; the value
// and gradient must still be the plain double sum over every pair (here written out directly).
TEST(NnLambdaRank, LongListsMatchThePlainSumOverPairs) {
  Rng rng(44);
  const int count = 700;
  Vector predictions(count), labels(count);
  for (int index = 0; index < count; ++index) {
    predictions[index] = static_cast<float>(rng.uniform(-3.0, 3.0));
    labels[index] = static_cast<float>(rng.uniform(0.0, 1.0));
  }
  std::vector<int> rank(static_cast<std::size_t>(count));
  std::iota(rank.begin(), rank.end(), 0);
  std::stable_sort(rank.begin(), rank.end(),
                   [&](int a, int b) { return predictions[a] > predictions[b]; });
  std::vector<int> position(static_cast<std::size_t>(count));
  for (int p = 0; p < count; ++p)
    position[static_cast<std::size_t>(rank[static_cast<std::size_t>(p)])] = p;
  std::vector<float> sorted(labels.data(), labels.data() + count);
  std::sort(sorted.begin(), sorted.end(), std::greater<float>());
  double maximumDcg = 0;
  for (int p = 0; p < count; ++p)
    maximumDcg += (std::exp2(sorted[static_cast<std::size_t>(p)]) - 1) / std::log2(2.0 + p);
  double expected = 0;
  std::vector<double> gradient(static_cast<std::size_t>(count), 0.0);
  for (int i = 0; i < count; ++i)
    for (int j = 0; j < count; ++j) {
      if (!(labels[i] > labels[j]))
        continue;
      const double weight = std::abs(1 / std::log2(2.0 + position[static_cast<std::size_t>(i)]) -
                                     1 / std::log2(2.0 + position[static_cast<std::size_t>(j)])) *
                            std::abs((std::exp2(labels[i]) - std::exp2(labels[j])) / maximumDcg);
      const double margin = static_cast<double>(predictions[i]) - predictions[j];
      expected -= weight * std::log2(sigmoid(margin));
      const double marginGradient = -weight * sigmoid(-margin) / std::log(2.0);
      gradient[static_cast<std::size_t>(i)] += marginGradient;
      gradient[static_cast<std::size_t>(j)] -= marginGradient;
    }
  const LossValue loss = lambdaRank(predictions, labels);
  EXPECT_NEAR(loss.value, expected, 1e-9 * std::abs(expected));
  for (int index = 0; index < count; ++index)
    ASSERT_NEAR(loss.gradient[index], gradient[static_cast<std::size_t>(index)],
                1e-6 + 1e-5 * std::abs(gradient[static_cast<std::size_t>(index)]))
        << "item " << index;
  // Chunks are fixed by the list, not by the threads: the same list gives the same bits.
  EXPECT_EQ(lambdaRank(predictions, labels).value, loss.value);
}
