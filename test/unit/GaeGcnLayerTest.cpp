// The graph convolution H' = Â·H·W: a hand-computed output, Glorot initialisation from a seed,
// and its input and weight gradients against finite differences.
#include "GaeTestSupport.h"
#include "GradientCheckSupport.h"
#include "gae/GcnLayer.h"
#include "gae/GraphBatch.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace clustune;
using namespace clustune::gae;
using namespace clustune::gae::testing;
using namespace clustune::nn::testing;

namespace {

// Two graphs (a 3-node path and a 4-node star) as one block-diagonal adjacency.
AdjacencyMatrix twoGraphAdjacency() {
  return normalizedAdjacency(7, {{0, 1}, {1, 2}, {3, 4}, {3, 5}, {3, 6}});
}

} // namespace

TEST(GaeGcnLayer, ForwardIsAdjacencyTimesInputTimesWeight) {
  Rng rng(1);
  GcnLayer layer("gcn", 2, 1, rng);
  layer.weight().value << 1, -2;
  nn::Matrix input(3, 2);
  input << 1, 0, //
      0, 1,      //
      2, 2;
  // H·W = [1, -2, -2]ᵀ; Â of the path mixes them: row 0 = 1/2 · 1 + 1/sqrt(6) · (-2).
  const nn::Matrix output = layer.forward(normalizedAdjacency(3, pathEdges(3)), input);
  const float edge = 1.0f / std::sqrt(6.0f);
  EXPECT_NEAR(output(0, 0), 0.5f - 2 * edge, 1e-6f);
  EXPECT_NEAR(output(1, 0), edge - 2.0f / 3.0f - 2 * edge, 1e-6f);
  EXPECT_NEAR(output(2, 0), -2 * edge - 1.0f, 1e-6f);
  EXPECT_TRUE(layer.infer(normalizedAdjacency(3, pathEdges(3)), input).isApprox(output));
}

TEST(GaeGcnLayer, GlorotInitialisationFromSeed) {
  Rng first(9), second(9), reference(9);
  GcnLayer layer("encoder.0", 12, 20, first);
  GcnLayer same("encoder.0", 12, 20, second);
  EXPECT_EQ(layer.weight().name, "encoder.0.weight");
  EXPECT_TRUE(layer.weight().value == same.weight().value);
  const double limit = std::sqrt(6.0 / 32.0);
  EXPECT_EQ(layer.weight().value(0, 0), static_cast<float>(reference.uniform(-limit, limit)));
  EXPECT_EQ(layer.weight().value(0, 1), static_cast<float>(reference.uniform(-limit, limit)));
  EXPECT_LE(layer.weight().value.cwiseAbs().maxCoeff(), limit);
  EXPECT_GT(layer.weight().value.cwiseAbs().maxCoeff(), 0.9 * limit);
  EXPECT_TRUE(layer.weight().gradient.isZero(0));
}

TEST(GaeGcnLayer, InputGradientMatchesFiniteDifferences) {
  Rng rng(2);
  GcnLayer layer("gcn", 3, 4, rng);
  const AdjacencyMatrix adjacency = twoGraphAdjacency();
  nn::Matrix input = randomMatrix(7, 3, rng);
  const nn::Matrix coefficients = randomMatrix(7, 4, rng);
  layer.forward(adjacency, input);
  const nn::Matrix analytic = layer.backward(coefficients);
  const nn::Matrix numerical = numericalGradient<nn::Matrix>(
      input, [&] { return weightedSum(coefficients, layer.infer(adjacency, input)); });
  EXPECT_TRUE(gradientsAgree(analytic, numerical));
}

TEST(GaeGcnLayer, WeightGradientMatchesFiniteDifferences) {
  Rng rng(3);
  GcnLayer layer("gcn", 3, 4, rng);
  const AdjacencyMatrix adjacency = twoGraphAdjacency();
  const nn::Matrix input = randomMatrix(7, 3, rng);
  const nn::Matrix coefficients = randomMatrix(7, 4, rng);
  layer.forward(adjacency, input);
  layer.backward(coefficients);
  const nn::Matrix numerical = numericalGradient<nn::Matrix>(layer.weight().value, [&] {
    return weightedSum(coefficients, layer.infer(adjacency, input));
  });
  EXPECT_TRUE(gradientsAgree(layer.weight().gradient, numerical));
}
