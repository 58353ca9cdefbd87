// Graph simplification on hand-built graphs: pass-through removal, constant folding of shape
// chains, operand-to-attribute canonicalisation, BatchNormalization folding (numerically),
// and pattern refinement.
#include "graph/Simplify.h"

#include "graph/ConstantFolding.h"
#include "support/Error.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace clustune::graph;
using clustune::Error;

namespace {

ValueId addInput(Graph& graph, const std::string& name, Shape shape) {
  Value value{.name = name, .shape = std::move(shape), .kind = ValueKind::Input};
  const auto id = graph.addValue(value);
  graph.inputs.push_back(id);
  return id;
}

ValueId addConstant(Graph& graph, Shape shape, std::vector<double> floats,
                    std::vector<std::int64_t> ints = {}) {
  Value value{.name = "c" + std::to_string(graph.values.size()),
              .dtype = ints.empty() ? DataType::Float32 : DataType::Int64,
              .shape = std::move(shape),
              .kind = ValueKind::Constant,
              .hasData = true,
              .floatData = std::move(floats),
              .intData = std::move(ints)};
  return graph.addValue(value);
}

ValueId addNode(Graph& graph, const std::string& op, std::vector<ValueId> inputs, Shape shape,
                Attributes attributes = {}, DataType dtype = DataType::Float32) {
  const auto output = graph.addValue(Value{
      .name = op + std::to_string(graph.nodes.size()), .dtype = dtype, .shape = std::move(shape)});
  graph.addNode(Node{.op = op,
                     .attributes = std::move(attributes),
                     .inputs = std::move(inputs),
                     .outputs = {output}});
  return output;
}

} // namespace

TEST(Simplify, RemovesIdentityAndDropout) {
  Graph graph;
  const auto x = addInput(graph, "x", {2, 3});
  const auto a = addNode(graph, "Identity", {x}, {2, 3});
  const auto b = addNode(graph, "Dropout", {a}, {2, 3});
  graph.outputs = {addNode(graph, "Relu", {b}, {2, 3})};
  const auto statistics = simplify(graph);
  EXPECT_EQ(statistics.passThroughRemoved, 2);
  ASSERT_EQ(graph.nodes.size(), 1u);
  EXPECT_EQ(graph.nodes[0].op, "Relu");
  EXPECT_EQ(graph.nodes[0].inputs[0], graph.inputs[0]);
}

TEST(Simplify, FoldsShapeGatherConcatChainIntoReshapeAttribute) {
  Graph graph;
  const auto x = addInput(graph, "x", {4, 2, 3});
  const auto shape = addNode(graph, "Shape", {x}, {3}, {}, DataType::Int64);
  const auto zero = addConstant(graph, {}, {}, {0});
  const auto batch =
      addNode(graph, "Gather", {shape, zero}, {}, {{"axis", std::int64_t{0}}}, DataType::Int64);
  const auto axes = addConstant(graph, {1}, {}, {0});
  const auto batch1 = addNode(graph, "Unsqueeze", {batch, axes}, {1}, {}, DataType::Int64);
  const auto minusOne = addConstant(graph, {1}, {}, {-1});
  const auto target = addNode(graph, "Concat", {batch1, minusOne}, {2}, {{"axis", std::int64_t{0}}},
                              DataType::Int64);
  graph.outputs = {addNode(graph, "Reshape", {x, target}, {4, 6})};

  EXPECT_EQ(foldConstants(graph), 4);
  EXPECT_EQ(graph.values[target].intData, (std::vector<std::int64_t>{4, -1}));
  simplify(graph);
  ASSERT_EQ(graph.nodes.size(), 1u);
  EXPECT_EQ(graph.nodes[0].op, "Reshape");
  EXPECT_EQ(graph.nodes[0].inputs.size(), 1u);
  EXPECT_EQ(graph.nodes[0].intsAttribute("shape"), (std::vector<std::int64_t>{4, 6}));
}

TEST(Simplify, SliceOperandsBecomeNormalisedAttributes) {
  Graph graph;
  const auto x = addInput(graph, "x", {1, 10});
  const auto starts = addConstant(graph, {1}, {}, {-4});
  const auto ends = addConstant(graph, {1}, {}, {INT64_MAX});
  const auto axes = addConstant(graph, {1}, {}, {-1});
  graph.outputs = {addNode(graph, "Slice", {x, starts, ends, axes}, {1, 4})};
  simplify(graph);
  const Node& slice = graph.nodes.at(0);
  EXPECT_EQ(slice.inputs.size(), 1u);
  EXPECT_EQ(slice.intsAttribute("starts"), (std::vector<std::int64_t>{6}));
  EXPECT_EQ(slice.intsAttribute("ends"), (std::vector<std::int64_t>{10}));
  EXPECT_EQ(slice.intsAttribute("axes"), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(slice.intsAttribute("steps"), (std::vector<std::int64_t>{1}));
}

TEST(Simplify, ConstantOperandsOfNewOperatorsBecomeAttributes) {
  Graph graph;
  const auto x = addInput(graph, "x", {2, 5});
  const auto indices = addInput(graph, "indices", {3});
  const auto k = addConstant(graph, {}, {}, {-1});
  const auto axis = addConstant(graph, {}, {}, {-1});
  const auto topK = addConstant(graph, {1}, {}, {2});
  const auto depth = addConstant(graph, {}, {4.0}); // a float depth, as ONNX allows
  addInput(graph, "values", {2});
  const ValueId values = graph.inputs.back();
  graph.outputs = {addNode(graph, "Trilu", {x, k}, {2, 5}),
                   addNode(graph, "CumSum", {x, axis}, {2, 5}),
                   addNode(graph, "TopK", {x, topK}, {2, 2}),
                   addNode(graph, "OneHot", {indices, depth, values}, {3, 4})};
  simplify(graph);
  for (const Node& node : graph.nodes)
    EXPECT_EQ(node.inputs.size(), node.op == "OneHot" ? 2u : 1u) << node.op;
  EXPECT_EQ(graph.nodes[0].intAttribute("k", 0), -1);
  EXPECT_EQ(graph.nodes[0].intAttribute("upper", 0), 1);
  EXPECT_EQ(graph.nodes[1].intAttribute("axis", -9), 1);
  EXPECT_EQ(graph.nodes[1].intAttribute("exclusive", -1), 0);
  EXPECT_EQ(graph.nodes[1].intAttribute("reverse", -1), 0);
  EXPECT_EQ(graph.nodes[2].intAttribute("k", 0), 2);
  EXPECT_EQ(graph.nodes[2].intAttribute("axis", -9), 1);
  EXPECT_EQ(graph.nodes[2].intAttribute("largest", -1), 1);
  EXPECT_EQ(graph.nodes[2].intAttribute("sorted", -1), 1);
  EXPECT_EQ(graph.nodes[3].intAttribute("depth", 0), 4);
  EXPECT_EQ(graph.nodes[3].intAttribute("axis", -9), 1);
  EXPECT_EQ(graph.values[graph.nodes[3].inputs[1]].name, "values"); // ids change on compaction
}

TEST(Simplify, NonConstantOperandsOfNewOperatorsAreRefused) {
  Graph graph;
  const auto x = addInput(graph, "x", {2, 5});
  const auto k = addInput(graph, "k", {});
  graph.outputs = {addNode(graph, "Trilu", {x, k}, {2, 5})};
  try {
    simplify(graph);
    FAIL() << "a runtime k was accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("Trilu with a non-constant k is not supported"),
              std::string::npos)
        << error.what();
  }
}

TEST(Simplify, NewOperatorDefaultsBecomeExplicit) {
  Graph graph;
  const auto x = addInput(graph, "x", {2, 3, 4, 4});
  graph.outputs = {
      addNode(graph, "ArgMax", {x}, {2, 3, 4},
              {{"axis", std::int64_t{-1}}, {"keepdims", std::int64_t{0}}}, DataType::Int64),
      addNode(graph, "Hardmax", {x}, {2, 3, 4, 4}),
      addNode(graph, "GatherElements", {x, x}, {2, 3, 4, 4}, {{"axis", std::int64_t{-2}}}),
      addNode(graph, "DepthToSpace", {x}, {2, 3, 8, 8}, {{"blocksize", std::int64_t{2}}}),
      addNode(graph, "InstanceNormalization", {x}, {2, 3, 4, 4}),
      addNode(graph, "Mod", {x, x}, {2, 3, 4, 4})};
  simplify(graph);
  EXPECT_EQ(graph.nodes[0].intAttribute("axis", -9), 3);
  EXPECT_EQ(graph.nodes[0].intAttribute("keepdims", -1), 0);
  EXPECT_EQ(graph.nodes[0].intAttribute("select_last_index", -1), 0);
  EXPECT_EQ(graph.nodes[1].intAttribute("axis", -9), 3);
  EXPECT_EQ(graph.nodes[2].intAttribute("axis", -9), 2);
  EXPECT_EQ(graph.nodes[3].stringAttribute("mode"), "DCR");
  EXPECT_EQ(graph.nodes[4].floatAttribute("epsilon", 0), 1e-5);
  EXPECT_EQ(graph.nodes[5].intAttribute("fmod", -1), 0);
}

static std::vector<double> floatsOf(const Node& node, const std::string& key) {
  const AttributeValue* value = node.attribute(key);
  const auto* floats = value ? std::get_if<std::vector<double>>(value) : nullptr;
  return floats ? *floats : std::vector<double>{};
}

TEST(Simplify, ResizeRecordsItsScalesFromSizesOrScales) {
  Graph graph;
  const auto x = addInput(graph, "x", {1, 2, 4, 4});
  const auto empty = addConstant(graph, {0}, {});
  const auto sizes = addConstant(graph, {4}, {}, {1, 2, 6, 2});
  const auto scales = addConstant(graph, {4}, {1.0, 1.0, 0.6, 0.6});
  graph.outputs = {addNode(graph, "Resize", {x, empty, empty, sizes}, {1, 2, 6, 2}),
                   addNode(graph, "Resize", {x, kNoValue, scales}, {1, 2, 2, 2},
                           {{"mode", std::string("linear")}})};
  simplify(graph);
  EXPECT_EQ(graph.nodes[0].inputs.size(), 1u);
  EXPECT_EQ(floatsOf(graph.nodes[0], "scales"), (std::vector<double>{1, 1, 1.5, 0.5}));
  EXPECT_EQ(graph.nodes[0].stringAttribute("mode"), "nearest");
  EXPECT_EQ(graph.nodes[0].stringAttribute("coordinate_transformation_mode"), "half_pixel");
  EXPECT_EQ(graph.nodes[0].stringAttribute("nearest_mode"), "round_prefer_floor");
  EXPECT_EQ(floatsOf(graph.nodes[1], "scales"), (std::vector<double>{1, 1, 0.6, 0.6}));

  Graph opset10;
  const auto y = addInput(opset10, "y", {1, 1, 2, 2});
  const auto factors = addConstant(opset10, {4}, {1.0, 1.0, 2.0, 2.0});
  opset10.outputs = {addNode(opset10, "Resize", {y, factors}, {1, 1, 4, 4})};
  try {
    simplify(opset10);
    FAIL() << "opset 10's Resize was accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("Resize of opset 10"), std::string::npos)
        << error.what();
  }
}

TEST(Simplify, FoldsBatchNormIntoConvNumerically) {
  Graph graph;
  const auto x = addInput(graph, "x", {1, 1, 4, 4});
  const auto weight = addConstant(graph, {2, 1, 1, 1}, {2.0, -1.0});
  const auto conv = addNode(graph, "Conv", {x, weight}, {1, 2, 4, 4});
  const auto scale = addConstant(graph, {2}, {1.5, 0.5});
  const auto shift = addConstant(graph, {2}, {0.25, -1.0});
  const auto mean = addConstant(graph, {2}, {1.0, 2.0});
  const auto variance = addConstant(graph, {2}, {4.0, 0.25});
  graph.outputs = {addNode(graph, "BatchNormalization", {conv, scale, shift, mean, variance},
                           {1, 2, 4, 4}, {{"epsilon", 0.0}})};
  const auto statistics = simplify(graph);
  EXPECT_EQ(statistics.batchNormsFolded, 1);
  ASSERT_EQ(graph.nodes.size(), 1u);
  const Node& folded = graph.nodes[0];
  ASSERT_EQ(folded.inputs.size(), 3u);
  const Value& newWeight = graph.values[folded.inputs[1]];
  const Value& newBias = graph.values[folded.inputs[2]];
  ASSERT_TRUE(newWeight.hasData && newBias.hasData);
  // factor = scale / sqrt(variance): 0.75 and 1.0
  EXPECT_DOUBLE_EQ(newWeight.floatData[0], 2.0 * 0.75);
  EXPECT_DOUBLE_EQ(newWeight.floatData[1], -1.0 * 1.0);
  EXPECT_DOUBLE_EQ(newBias.floatData[0], (0.0 - 1.0) * 0.75 + 0.25);
  EXPECT_DOUBLE_EQ(newBias.floatData[1], (0.0 - 2.0) * 1.0 - 1.0);
  EXPECT_EQ(graph.outputs[0], folded.outputs[0]);
}

TEST(Simplify, BatchNormAfterConcatStaysAsBroadcast) {
  Graph graph;
  const auto x = addInput(graph, "x", {1, 2, 4, 4});
  const auto y = addInput(graph, "y", {1, 2, 4, 4});
  const auto joined = addNode(graph, "Concat", {x, y}, {1, 4, 4, 4}, {{"axis", std::int64_t{1}}});
  std::vector<ValueId> parameters;
  for (int i = 0; i < 4; ++i)
    parameters.push_back(addConstant(graph, {4}, {1, 1, 1, 1}));
  graph.outputs = {addNode(graph, "BatchNormalization",
                           {joined, parameters[0], parameters[1], parameters[2], parameters[3]},
                           {1, 4, 4, 4})};
  EXPECT_EQ(simplify(graph).batchNormsFolded, 0);
  EXPECT_EQ(graph.nodes.back().op, "BatchNormalization");
  EXPECT_EQ(graph.nodes.back().pattern, PatternKind::Broadcast);
}

TEST(Simplify, ElementwiseWithDifferentShapesIsBroadcast) {
  Graph graph;
  const auto x = addInput(graph, "x", {2, 3});
  const auto bias = addConstant(graph, {3}, {1, 2, 3});
  const auto sum = addNode(graph, "Add", {x, bias}, {2, 3});
  graph.outputs = {addNode(graph, "Relu", {sum}, {2, 3})};
  simplify(graph);
  EXPECT_EQ(graph.nodes[0].pattern, PatternKind::Broadcast);
  EXPECT_EQ(graph.nodes[1].pattern, PatternKind::ElemWise);
}

TEST(Simplify, ClipBoundsBecomeAttributes) {
  Graph graph;
  const auto x = addInput(graph, "x", {8});
  const auto low = addConstant(graph, {}, {0.0});
  const auto high = addConstant(graph, {}, {6.0});
  graph.outputs = {addNode(graph, "Clip", {x, low, high}, {8})};
  simplify(graph);
  EXPECT_EQ(graph.nodes[0].inputs.size(), 1u);
  EXPECT_DOUBLE_EQ(graph.nodes[0].floatAttribute("min", -1), 0.0);
  EXPECT_DOUBLE_EQ(graph.nodes[0].floatAttribute("max", -1), 6.0);
}

TEST(Simplify, ImplicitAndExplicitConvAttributesNormaliseAlike) {
  Graph graph;
  const auto x = addInput(graph, "x", {1, 4, 8, 8});
  const auto weight = addConstant(graph, {4, 4, 3, 3}, std::vector<double>(144, 0.5));
  const auto implicitConv =
      addNode(graph, "Conv", {x, weight}, {1, 4, 8, 8}, {{"auto_pad", std::string("SAME_UPPER")}});
  const auto explicitConv = addNode(graph, "Conv", {x, weight}, {1, 4, 8, 8},
                                    {{"kernel_shape", std::vector<std::int64_t>{3, 3}},
                                     {"strides", std::vector<std::int64_t>{1, 1}},
                                     {"dilations", std::vector<std::int64_t>{1, 1}},
                                     {"pads", std::vector<std::int64_t>{1, 1, 1, 1}},
                                     {"group", std::int64_t{1}}});
  graph.outputs = {implicitConv, explicitConv};
  simplify(graph);
  ASSERT_EQ(graph.nodes.size(), 2u);
  EXPECT_EQ(graph.nodes[0].attributes, graph.nodes[1].attributes);
  EXPECT_EQ(graph.nodes[0].intsAttribute("pads"), (std::vector<std::int64_t>{1, 1, 1, 1}));
}

TEST(Simplify, NegativeAxesBecomePositive) {
  Graph graph;
  const auto x = addInput(graph, "x", {2, 3, 5});
  graph.outputs = {addNode(graph, "Softmax", {x}, {2, 3, 5}),
                   addNode(graph, "LogSoftmax", {x}, {2, 3, 5}, {{"axis", std::int64_t{-2}}})};
  simplify(graph);
  EXPECT_EQ(graph.nodes[0].intAttribute("axis", -99), 2);
  EXPECT_EQ(graph.nodes[1].intAttribute("axis", -99), 1);
}

TEST(Simplify, ActivationDefaultsBecomeExplicit) {
  Graph graph;
  const auto x = addInput(graph, "x", {4});
  graph.outputs = {addNode(graph, "Selu", {x}, {4}), addNode(graph, "Shrink", {x}, {4}),
                   addNode(graph, "Celu", {x}, {4}, {{"alpha", 2.0}}),
                   addNode(graph, "ThresholdedRelu", {x}, {4})};
  simplify(graph);
  EXPECT_EQ(graph.nodes[0].floatAttribute("alpha", 0), 1.67326319217681884765625);
  EXPECT_EQ(graph.nodes[0].floatAttribute("gamma", 0), 1.05070102214813232421875);
  EXPECT_EQ(graph.nodes[1].floatAttribute("lambd", 0), 0.5);
  EXPECT_EQ(graph.nodes[1].floatAttribute("bias", -1), 0.0);
  EXPECT_EQ(graph.nodes[2].floatAttribute("alpha", 0), 2.0);
  EXPECT_EQ(graph.nodes[3].floatAttribute("alpha", 0), 1.0);
}

TEST(Simplify, ReductionAxesDefaultToAllAndBecomeSortedAndPositive) {
  Graph graph;
  const auto x = addInput(graph, "x", {2, 3, 5});
  graph.outputs = {
      addNode(graph, "ReduceL2", {x}, {1, 1, 1}),
      addNode(graph, "ReduceLogSumExp", {x}, {2},
              {{"axes", std::vector<std::int64_t>{-1, 1}}, {"keepdims", std::int64_t{0}}})};
  simplify(graph);
  EXPECT_EQ(graph.nodes[0].intsAttribute("axes"), (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(graph.nodes[0].intAttribute("keepdims", -1), 1);
  EXPECT_EQ(graph.nodes[1].intsAttribute("axes"), (std::vector<std::int64_t>{1, 2}));
}
