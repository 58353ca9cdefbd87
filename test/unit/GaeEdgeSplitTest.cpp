// Kipf & Welling's edge split over many graphs (sizes, disjointness, determinism, no isolated
// node when avoidable, non-edges within one graph) and the exact ROC AUC and average precision
// against hand-computed examples.
#include "GaeTestSupport.h"
#include "gae/EdgeSplit.h"
#include "support/Error.h"

#include <algorithm>
#include <gtest/gtest.h>

using namespace clustune;
using namespace clustune::gae;
using namespace clustune::gae::testing;

namespace {

int graphOf(const EdgeSplit& split, int node) {
  return static_cast<int>(
      std::upper_bound(split.graphOffsets.begin(), split.graphOffsets.end(), node) -
      split.graphOffsets.begin() - 1);
}

} // namespace

TEST(GaeEdgeSplit, SizesFollowKipfFractionsRoundedDown) {
  const std::vector<features::TaskGraph> graphs = toyGraphs(40, 1);
  std::size_t edges = 0;
  for (const features::TaskGraph& graph : graphs)
    edges += graph.edges.size();
  const EdgeSplit split = splitEdges(pointersTo(graphs), {});
  EXPECT_EQ(split.testEdges.size(), edges / 10);
  EXPECT_EQ(split.validationEdges.size(), edges / 20);
  EXPECT_EQ(split.testNonEdges.size(), split.testEdges.size());
  EXPECT_EQ(split.validationNonEdges.size(), split.validationEdges.size());
  EXPECT_EQ(split.trainingEdges.size() + split.testEdges.size() + split.validationEdges.size(),
            edges);
}

TEST(GaeEdgeSplit, PartsAreDisjointAndNonEdgesLieWithinOneGraph) {
  const std::vector<features::TaskGraph> graphs = toyGraphs(40, 2);
  const EdgeSplit split = splitEdges(pointersTo(graphs), {0.1, 0.05, 3});
  std::set<std::pair<int, int>> allEdges;
  for (std::size_t graph = 0; graph < graphs.size(); ++graph)
    for (const auto& [from, to] : graphs[graph].edges)
      allEdges.emplace(split.graphOffsets[graph] + from, split.graphOffsets[graph] + to);
  std::set<std::pair<int, int>> seen;
  for (const auto* part : {&split.trainingEdges, &split.validationEdges, &split.testEdges})
    for (const auto& edge : *part) {
      EXPECT_TRUE(allEdges.count(edge));
      EXPECT_TRUE(seen.insert(edge).second) << "edge in two parts";
    }
  for (const auto* part : {&split.validationNonEdges, &split.testNonEdges})
    for (const auto& [from, to] : *part) {
      EXPECT_LT(from, to);
      EXPECT_EQ(graphOf(split, from), graphOf(split, to));
      EXPECT_FALSE(allEdges.count({from, to}));
      EXPECT_TRUE(seen.insert({from, to}).second) << "non-edge drawn twice";
    }
}

TEST(GaeEdgeSplit, DeterministicPerSeed) {
  const std::vector<features::TaskGraph> graphs = toyGraphs(40, 3);
  const EdgeSplit first = splitEdges(pointersTo(graphs), {0.1, 0.05, 7});
  const EdgeSplit second = splitEdges(pointersTo(graphs), {0.1, 0.05, 7});
  const EdgeSplit other = splitEdges(pointersTo(graphs), {0.1, 0.05, 8});
  EXPECT_EQ(first.testEdges, second.testEdges);
  EXPECT_EQ(first.validationEdges, second.validationEdges);
  EXPECT_EQ(first.testNonEdges, second.testNonEdges);
  EXPECT_EQ(first.validationNonEdges, second.validationNonEdges);
  EXPECT_NE(first.testEdges, other.testEdges);
}

TEST(GaeEdgeSplit, KeepsEveryNodeConnectedWhenPossible) {
  // 20 paths of 4 nodes: 60 edges, of which only the 20 middle ones spare both their ends, and
  // 9 are held out. A split that ignored the rule would pick an end edge with probability ⅔.
  std::vector<features::TaskGraph> graphs;
  Rng rng(4);
  for (int index = 0; index < 20; ++index)
    graphs.push_back(randomFeatureGraph(4, 2, pathEdges(4), rng));
  const EdgeSplit split = splitEdges(pointersTo(graphs), {0.1, 0.05, 5});
  ASSERT_EQ(split.testEdges.size() + split.validationEdges.size(), 9u);
  std::vector<int> degree(static_cast<std::size_t>(split.graphOffsets.back()), 0);
  for (const auto& [from, to] : split.trainingEdges) {
    ++degree[static_cast<std::size_t>(from)];
    ++degree[static_cast<std::size_t>(to)];
  }
  EXPECT_EQ(std::count(degree.begin(), degree.end(), 0), 0);
}

TEST(GaeEdgeSplit, FillsTheQuotaWhenIsolationIsUnavoidable) {
  // Every edge of a star ends at a leaf: the split must isolate some leaves.
  std::vector<features::TaskGraph> graphs;
  Rng rng(5);
  for (int index = 0; index < 10; ++index)
    graphs.push_back(randomFeatureGraph(5, 2, starEdges(5), rng));
  const EdgeSplit split = splitEdges(pointersTo(graphs), {0.1, 0.05, 6});
  EXPECT_EQ(split.testEdges.size(), 4u);
  EXPECT_EQ(split.validationEdges.size(), 2u);
  EXPECT_EQ(split.trainingEdges.size(), 34u);
}

TEST(GaeEdgeSplit, AtLeastOneHeldOutEdgeFromTwentyEdgesAndRefusesTooFewNonEdges) {
  Rng rng(6);
  const std::vector<features::TaskGraph> graphs{randomFeatureGraph(21, 2, pathEdges(21), rng)};
  const EdgeSplit split = splitEdges(pointersTo(graphs), {0.01, 0.01, 1});
  EXPECT_EQ(split.testEdges.size(), 1u);
  EXPECT_EQ(split.validationEdges.size(), 1u);
  // Complete graphs on 3 nodes have no non-edge to draw.
  std::vector<features::TaskGraph> triangles;
  for (int index = 0; index < 7; ++index)
    triangles.push_back(randomFeatureGraph(3, 2, {{0, 1}, {0, 2}, {1, 2}}, rng));
  EXPECT_THROW(splitEdges(pointersTo(triangles), {}), Error);
}

TEST(GaeEdgeSplit, HeldOutEdgesAreRenumberedForASubBatch) {
  // Graph 0 owns nodes 0-3, graph 1 nodes 4-8.
  EdgeSplit split;
  split.graphOffsets = {0, 4, 9};
  split.testEdges = {{1, 2}, {4, 6}};
  EXPECT_EQ(heldOutEdgesForBatch(split, {1}), (std::set<std::pair<int, int>>{{0, 2}}));
  EXPECT_EQ(heldOutEdgesForBatch(split, {1, 0}), (std::set<std::pair<int, int>>{{0, 2}, {6, 7}}));
}

TEST(GaeLinkMetrics, RocAucByHand) {
  // Pairs (positive, negative): 0.9 beats both, 0.4 beats 0.1 only → 3 of 4.
  EXPECT_DOUBLE_EQ(rocAuc({0.9, 0.4}, {0.5, 0.1}), 0.75);
  EXPECT_DOUBLE_EQ(rocAuc({0.5}, {0.5}), 0.5);
  EXPECT_DOUBLE_EQ(rocAuc({0.7, 0.5}, {0.5, 0.1}), (2 + 1 + 0.5) / 4);
  EXPECT_DOUBLE_EQ(rocAuc({1, 2}, {3}), 0.0);
  EXPECT_THROW(rocAuc({}, {1}), Error);
}

TEST(GaeLinkMetrics, AveragePrecisionByHand) {
  // Descending: 0.9 (+) P=1 R=½; 0.5 (−); 0.4 (+) P=⅔ R=1 → ½·1 + ½·⅔.
  EXPECT_NEAR(averagePrecision({0.9, 0.4}, {0.5, 0.1}), 0.5 + 1.0 / 3.0, 1e-12);
  EXPECT_DOUBLE_EQ(averagePrecision({0.9, 0.8}, {0.1}), 1.0);
  // A tie forms one threshold: {0.5+, 0.5−} → P=½ at R=1 (scikit-learn gives 0.5).
  EXPECT_DOUBLE_EQ(averagePrecision({0.5}, {0.5}), 0.5);
  EXPECT_THROW(averagePrecision({}, {1}), Error);
}
