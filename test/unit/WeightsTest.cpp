// Stand-in weights: ranges by role, determinism by seed, and no change to constants that have
// data.
#include "graph/Weights.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace clustune::graph;

namespace {

ValueId addValue(Graph& graph, const std::string& name, Shape shape, ValueKind kind) {
  return graph.addValue(Value{.name = name, .shape = std::move(shape), .kind = kind});
}

Graph convBatchNorm() {
  Graph graph;
  const auto x = addValue(graph, "x", {1, 4, 8, 8}, ValueKind::Input);
  graph.inputs = {x};
  const auto w = addValue(graph, "w", {8, 4, 3, 3}, ValueKind::Constant);
  const auto conv = addValue(graph, "conv", {1, 8, 8, 8}, ValueKind::Intermediate);
  graph.addNode(Node{.op = "Conv", .inputs = {x, w}, .outputs = {conv}});
  std::vector<ValueId> parameters;
  for (const char* name : {"scale", "bias", "mean", "var"})
    parameters.push_back(addValue(graph, name, {8}, ValueKind::Constant));
  const auto y = addValue(graph, "y", {1, 8, 8, 8}, ValueKind::Intermediate);
  graph.addNode(Node{.op = "BatchNormalization",
                     .inputs = {conv, parameters[0], parameters[1], parameters[2], parameters[3]},
                     .outputs = {y}});
  graph.outputs = {y};
  return graph;
}

const Value& named(const Graph& graph, const std::string& name) {
  for (const Value& value : graph.values)
    if (value.name == name)
      return value;
  throw std::runtime_error("no value " + name);
}

} // namespace

TEST(Weights, RangesFollowTheRoleOfTheConstant) {
  Graph graph = convBatchNorm();
  EXPECT_EQ(generateMissingWeights(graph, 1), 5);
  const double bound = 1.0 / std::sqrt(4.0 * 3 * 3);
  for (double w : named(graph, "w").floatData)
    EXPECT_LE(std::fabs(w), bound);
  for (const char* positive : {"scale", "var"})
    for (double v : named(graph, positive).floatData) {
      EXPECT_GE(v, 0.5);
      EXPECT_LE(v, 1.5);
    }
  for (const char* small : {"bias", "mean"})
    for (double v : named(graph, small).floatData)
      EXPECT_LE(std::fabs(v), 0.1);
}

TEST(Weights, SameSeedSameWeightsAndExistingDataKept) {
  Graph first = convBatchNorm(), second = convBatchNorm(), other = convBatchNorm();
  first.values[1].hasData = true; // "w" already carries data: it must not change
  first.values[1].floatData.assign(8 * 4 * 9, 0.25);
  generateMissingWeights(first, 7);
  generateMissingWeights(second, 7);
  generateMissingWeights(other, 8);
  EXPECT_EQ(named(first, "var").floatData, named(second, "var").floatData);
  EXPECT_NE(named(first, "var").floatData, named(other, "var").floatData);
  EXPECT_EQ(named(first, "w").floatData[0], 0.25);
}
