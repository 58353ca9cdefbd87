// The GAE's input side: column statistics of the node features, the normalised adjacency
// computed by hand for a path, and block-diagonal batches with held-out edges.
#include "GaeTestSupport.h"
#include "gae/GraphBatch.h"
#include "support/Error.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace clustune;
using namespace clustune::gae;
using namespace clustune::gae::testing;

namespace {

features::TaskGraph graphWithFeatures(std::size_t nodes, std::size_t featureCount,
                                      std::vector<float> values,
                                      std::vector<std::pair<int, int>> edges = {}) {
  features::TaskGraph graph;
  graph.nodeCount = nodes;
  graph.featureCount = featureCount;
  graph.features = std::move(values);
  graph.edges = std::move(edges);
  return graph;
}

} // namespace

TEST(GaeFeatureStandardizer, FitsColumnMeanAndPopulationStdOverAllNodes) {
  // Column 0 over the three nodes: 1, 3, 5 → mean 3, variance 8/3. Column 1 is constant → std 1.
  const features::TaskGraph first = graphWithFeatures(2, 2, {1, 7, 3, 7});
  const features::TaskGraph second = graphWithFeatures(1, 2, {5, 7});
  FeatureStandardizer standardizer;
  standardizer.fit({&first, &second});
  ASSERT_EQ(standardizer.featureCount(), 2);
  EXPECT_FLOAT_EQ(standardizer.mean()(0, 0), 3.0f);
  EXPECT_FLOAT_EQ(standardizer.mean()(0, 1), 7.0f);
  EXPECT_FLOAT_EQ(standardizer.standardDeviation()(0, 0), std::sqrt(8.0f / 3.0f));
  EXPECT_FLOAT_EQ(standardizer.standardDeviation()(0, 1), 1.0f);
  const nn::Matrix standardised = standardizer.standardize(first);
  EXPECT_NEAR(standardised(0, 0), -2.0f / std::sqrt(8.0f / 3.0f), 1e-6f);
  EXPECT_NEAR(standardised(1, 0), 0.0f, 1e-6f);
  EXPECT_EQ(standardised(0, 1), 0.0f);
}

TEST(GaeFeatureStandardizer, RefusesMismatchedFeatureCounts) {
  const features::TaskGraph first = graphWithFeatures(1, 2, {1, 2});
  const features::TaskGraph second = graphWithFeatures(1, 3, {1, 2, 3});
  FeatureStandardizer standardizer;
  EXPECT_THROW(standardizer.fit({&first, &second}), Error);
  standardizer.fit({&first});
  EXPECT_THROW(standardizer.standardize(second), Error);
  const features::TaskGraph truncated = graphWithFeatures(2, 2, {1, 2, 3});
  EXPECT_THROW(standardizer.standardize(truncated), Error);
  EXPECT_THROW(standardizer.fit({}), Error);
}

TEST(GaeGraphBatch, NormalizedAdjacencyOfThreeNodePathByHand) {
  // Path 0-1-2 with self loops: degrees 2, 3, 2.
  const nn::Matrix dense = nn::Matrix(normalizedAdjacency(3, pathEdges(3)));
  nn::Matrix expected(3, 3);
  const float third = 1.0f / 3.0f, edge = 1.0f / std::sqrt(6.0f);
  expected << 0.5f, edge, 0, //
      edge, third, edge,     //
      0, edge, 0.5f;
  EXPECT_TRUE(dense.isApprox(expected, 1e-6f)) << dense;
}

TEST(GaeGraphBatch, BatchIsBlockDiagonalWithOffsetsAndStandardisedFeatures) {
  Rng rng(5);
  const features::TaskGraph path = randomFeatureGraph(3, 2, pathEdges(3), rng);
  const features::TaskGraph star = randomFeatureGraph(4, 2, starEdges(4), rng);
  FeatureStandardizer standardizer;
  standardizer.fit({&path, &star});
  const GraphBatch batch = makeGraphBatch({&path, &star}, standardizer);
  EXPECT_EQ(batch.graphOffsets, (std::vector<int>{0, 3, 7}));
  EXPECT_EQ(batch.graphCount(), 2);
  EXPECT_EQ(batch.edges,
            (std::vector<std::pair<int, int>>{{0, 1}, {1, 2}, {3, 4}, {3, 5}, {3, 6}}));
  const nn::Matrix dense = nn::Matrix(batch.adjacency);
  EXPECT_TRUE(dense.block(0, 3, 3, 4).isZero(0));
  EXPECT_TRUE(dense.block(3, 0, 4, 3).isZero(0));
  EXPECT_TRUE(dense.block(0, 0, 3, 3).isApprox(nn::Matrix(normalizedAdjacency(3, pathEdges(3)))));
  EXPECT_TRUE(dense.block(3, 3, 4, 4).isApprox(nn::Matrix(normalizedAdjacency(4, starEdges(4)))));
  EXPECT_TRUE(batch.features.middleRows(3, 4).isApprox(standardizer.standardize(star)));
}

TEST(GaeGraphBatch, RemovedEdgesLeaveTheAdjacency) {
  Rng rng(6);
  const features::TaskGraph path = randomFeatureGraph(3, 2, pathEdges(3), rng);
  const features::TaskGraph star = randomFeatureGraph(4, 2, starEdges(4), rng);
  FeatureStandardizer standardizer;
  standardizer.fit({&path, &star});
  const std::set<std::pair<int, int>> removed{{3, 5}};
  const GraphBatch batch = makeGraphBatch({&path, &star}, standardizer, &removed);
  EXPECT_EQ(batch.edges, (std::vector<std::pair<int, int>>{{0, 1}, {1, 2}, {3, 4}, {3, 6}}));
  const nn::Matrix dense = nn::Matrix(batch.adjacency);
  EXPECT_EQ(dense(3, 5), 0.0f);
  EXPECT_EQ(dense(5, 3), 0.0f);
  EXPECT_FLOAT_EQ(dense(5, 5), 1.0f); // node 5 keeps only its self loop
  EXPECT_FLOAT_EQ(dense(3, 3), 1.0f / 3.0f);
}

TEST(GaeGraphBatch, RefusesMalformedEdges) {
  Rng rng(7);
  FeatureStandardizer standardizer;
  const features::TaskGraph reversed = randomFeatureGraph(3, 2, {{1, 0}}, rng);
  const features::TaskGraph outside = randomFeatureGraph(3, 2, {{0, 3}}, rng);
  const features::TaskGraph repeated = randomFeatureGraph(3, 2, {{0, 1}, {0, 1}}, rng);
  const features::TaskGraph selfLoop = randomFeatureGraph(3, 2, {{1, 1}}, rng);
  standardizer.fit({&reversed});
  EXPECT_THROW(makeGraphBatch({&reversed}, standardizer), Error);
  EXPECT_THROW(makeGraphBatch({&outside}, standardizer), Error);
  EXPECT_THROW(makeGraphBatch({&repeated}, standardizer), Error);
  EXPECT_THROW(makeGraphBatch({&selfLoop}, standardizer), Error);
}
