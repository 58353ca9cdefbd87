// The GAE's objectives: Kipf's pos_weight and norm by hand, a structure loss computed pair by
// pair, numerically stable BCE for huge logits, and the gradients of the structure loss (with
// respect to Z) and of the feature decoder against finite differences.
#include "gae/GaeLoss.h"

#include "GradientCheckSupport.h"
#include "nn/Dense.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace clustune;
using namespace clustune::gae;
using namespace clustune::nn::testing;

namespace {

// Graph 0: nodes 0-2 as the path 0-1-2; graph 1: nodes 3-4, no edge.
const std::vector<int> kOffsets{0, 3, 5};
const std::vector<std::pair<int, int>> kEdges{{0, 1}, {1, 2}};

} // namespace

TEST(GaeStructureLoss, PositiveWeightAndNormByHand) {
  Rng rng(1);
  const nn::Matrix embeddings = randomMatrix(5, 2, rng);
  const StructureLossValue loss = structureLoss(embeddings, kOffsets, kEdges);
  // P = 3² + 2² = 13 pairs; E⁺ = 5 diagonal + 2·2 edge entries = 9; negatives = 4.
  EXPECT_EQ(loss.pairs, 13);
  EXPECT_EQ(loss.positives, 9);
  EXPECT_DOUBLE_EQ(loss.positiveWeight, 4.0 / 9.0);
  EXPECT_DOUBLE_EQ(loss.norm, 13.0 / 8.0);
}

TEST(GaeStructureLoss, ValueIsNormTimesMeanWeightedBceOverWithinGraphPairs) {
  Rng rng(2);
  const nn::Matrix embeddings = randomMatrix(5, 3, rng);
  const StructureLossValue loss = structureLoss(embeddings, kOffsets, kEdges);
  auto sigmoid = [](double x) { return 1.0 / (1.0 + std::exp(-x)); };
  double sum = 0;
  for (int graph = 0; graph < 2; ++graph) {
    for (int i = kOffsets[graph]; i < kOffsets[graph + 1]; ++i) {
      for (int j = kOffsets[graph]; j < kOffsets[graph + 1]; ++j) {
        const double p =
            sigmoid(embeddings.row(i).cast<double>().dot(embeddings.row(j).cast<double>()));
        const bool positive = i == j || (std::abs(i - j) == 1 && graph == 0);
        sum += positive ? -(4.0 / 9.0) * std::log(p) : -std::log(1 - p);
      }
    }
  }
  EXPECT_NEAR(loss.value, 13.0 / 8.0 * sum / 13.0, 1e-9);
}

TEST(GaeStructureLoss, StableForHugeLogits) {
  nn::Matrix embeddings(2, 1);
  embeddings << 100, -100; // logits ±10⁴: a naive log(σ) gives −inf
  const StructureLossValue loss = structureLoss(embeddings, {0, 2}, {});
  EXPECT_TRUE(std::isfinite(loss.value));
  EXPECT_TRUE(loss.gradient.allFinite());
  EXPECT_NEAR(softplus(-1e4), 0.0, 1e-300);
  EXPECT_DOUBLE_EQ(softplus(1e4), 1e4);
  EXPECT_NEAR(softplus(0), std::log(2.0), 1e-15);
}

TEST(GaeStructureLoss, GradientWithRespectToEmbeddingsMatchesFiniteDifferences) {
  Rng rng(3);
  nn::Matrix embeddings = randomMatrix(5, 3, rng);
  const StructureLossValue loss = structureLoss(embeddings, kOffsets, kEdges);
  const nn::Matrix numerical = numericalGradient<nn::Matrix>(
      embeddings, [&] { return structureLoss(embeddings, kOffsets, kEdges).value; });
  EXPECT_TRUE(gradientsAgree(loss.gradient, numerical));
}

TEST(GaeStructureLoss, CompleteGraphsFallBackToPlainBce) {
  Rng rng(4);
  const nn::Matrix embeddings = randomMatrix(2, 2, rng);
  const StructureLossValue loss = structureLoss(embeddings, {0, 2}, {{0, 1}});
  EXPECT_EQ(loss.positiveWeight, 1.0);
  EXPECT_EQ(loss.norm, 1.0);
  EXPECT_TRUE(std::isfinite(loss.value));
}

TEST(GaeFeatureLoss, MeanSquaredErrorByHand) {
  nn::Matrix reconstruction(1, 2), target(1, 2);
  reconstruction << 1, 2;
  target << 0, 4;
  const FeatureLossValue loss = featureReconstructionLoss(reconstruction, target);
  EXPECT_DOUBLE_EQ(loss.value, 2.5);
  EXPECT_FLOAT_EQ(loss.gradient(0, 0), 1.0f);
  EXPECT_FLOAT_EQ(loss.gradient(0, 1), -2.0f);
}

TEST(GaeFeatureLoss, FeatureDecoderGradientsMatchFiniteDifferences) {
  Rng rng(5);
  nn::Dense decoder("feature_decoder", 3, 4, rng);
  nn::Matrix embeddings = randomMatrix(6, 3, rng);
  const nn::Matrix target = randomMatrix(6, 4, rng);
  auto lossValue = [&] {
    return featureReconstructionLoss(decoder.infer(embeddings), target).value;
  };
  const FeatureLossValue loss = featureReconstructionLoss(decoder.forward(embeddings), target);
  const nn::Matrix embeddingGradient = decoder.backward(loss.gradient);
  EXPECT_TRUE(
      gradientsAgree(embeddingGradient, numericalGradient<nn::Matrix>(embeddings, lossValue)));
  EXPECT_TRUE(gradientsAgree(decoder.weight().gradient,
                             numericalGradient<nn::Matrix>(decoder.weight().value, lossValue)));
  EXPECT_TRUE(gradientsAgree(decoder.bias().gradient,
                             numericalGradient<nn::Matrix>(decoder.bias().value, lossValue)));
}
