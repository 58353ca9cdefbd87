// clustune's own shape inference on hand-built graphs: every registered operator has a rule,
// shape arithmetic is evaluated on the way, the operand forms of opsets 13 to 21 give the same
// shapes, and bad input is named. ONNX's inference cross-checks these rules on every conformance
// model (clustune-conformance) and on the corpus (lit partition/opset21.test).
#include "graph/ShapeInference.h"

#include "graph/ConstantFolding.h"
#include "support/Error.h"

#include <gtest/gtest.h>

using namespace clustune::graph;

namespace {

struct Builder {
  Graph graph;

  ValueId input(Shape shape, DataType dtype = DataType::Float32) {
    const auto id = graph.addValue(Value{.name = "in" + std::to_string(graph.values.size()),
                                         .dtype = dtype,
                                         .shape = std::move(shape),
                                         .kind = ValueKind::Input});
    graph.inputs.push_back(id);
    return id;
  }
  ValueId ints(std::vector<std::int64_t> data, Shape shape = {}) {
    if (shape.empty())
      shape = {static_cast<std::int64_t>(data.size())};
    return graph.addValue(Value{.name = "c" + std::to_string(graph.values.size()),
                                .dtype = DataType::Int64,
                                .shape = std::move(shape),
                                .kind = ValueKind::Constant,
                                .hasData = true,
                                .intData = std::move(data)});
  }
  // A node with `outputs` untyped outputs; returns the first.
  ValueId node(const std::string& op, std::vector<ValueId> inputs, Attributes attributes = {},
               int outputs = 1) {
    std::vector<ValueId> ids;
    for (int i = 0; i < outputs; ++i)
      ids.push_back(graph.addValue(Value{.name = op + std::to_string(graph.values.size())}));
    graph.addNode(Node{.name = op + "_node",
                       .op = op,
                       .attributes = std::move(attributes),
                       .inputs = std::move(inputs),
                       .outputs = ids});
    return ids[0];
  }
  const Value& value(ValueId id) const { return graph.values[id]; }
};

std::string errorOf(Graph& graph, int opset = 17) {
  try {
    inferShapes(graph, opset);
  } catch (const clustune::Error& error) {
    return error.what();
  }
  return "";
}

TEST(ShapeInference, EveryRegisteredOperatorHasARule) {
  EXPECT_EQ(operatorsWithoutShapeRule(), std::vector<std::string>{});
}

TEST(ShapeInference, ShapeArithmeticFeedsReshape) {
  Builder b;
  const auto x = b.input({2, 3, 4});
  const auto shape = b.node("Shape", {x});
  const auto batch = b.node("Gather", {shape, b.ints({0})}, {{"axis", std::int64_t{0}}});
  const auto target = b.node("Concat", {batch, b.ints({-1})}, {{"axis", std::int64_t{0}}});
  const auto y = b.node("Reshape", {x, target});
  inferShapes(b.graph, 17);
  EXPECT_EQ(b.value(shape).dtype, DataType::Int64);
  EXPECT_EQ(b.value(y).shape, (Shape{2, 12}));
  EXPECT_EQ(b.value(y).kind, ValueKind::Intermediate) << "inference leaves folding to simplify";
}

TEST(ShapeInference, SliceClampsAndStepsBackwards) {
  Builder b;
  const auto x = b.input({10, 6});
  const auto forward = b.node(
      "Slice", {x, b.ints({-3, 1}), b.ints({INT64_MAX, 100}), b.ints({0, 1}), b.ints({1, 2})});
  const auto backward =
      b.node("Slice", {x, b.ints({-1}), b.ints({-11}), b.ints({1}), b.ints({-2})});
  inferShapes(b.graph, 17);
  EXPECT_EQ(b.value(forward).shape, (Shape{3, 3}));
  EXPECT_EQ(b.value(backward).shape, (Shape{10, 3}));
}

TEST(ShapeInference, OpsetEighteenFormsMatchTheAttributeForms) {
  Builder b;
  const auto x = b.input({2, 7, 5});
  const auto meanAttribute = b.node("ReduceMean", {x}, {{"axes", std::vector<std::int64_t>{-1}}});
  const auto meanInput = b.node("ReduceMean", {x, b.ints({-1})});
  const auto pieces =
      b.node("Split", {x}, {{"axis", std::int64_t{1}}, {"num_outputs", std::int64_t{3}}}, 3);
  const auto padded = b.node("Pad", {x, b.ints({1, 2}), kNoValue, b.ints({1})});
  const auto all = b.node("ReduceSum", {x, b.ints({}, {0})}, {{"keepdims", std::int64_t{0}}});
  const auto none =
      b.node("ReduceSum", {x, b.ints({}, {0})}, {{"noop_with_empty_axes", std::int64_t{1}}});
  inferShapes(b.graph, 18);
  EXPECT_EQ(b.value(meanAttribute).shape, (Shape{2, 7, 1}));
  EXPECT_EQ(b.value(meanInput).shape, (Shape{2, 7, 1}));
  EXPECT_EQ(b.value(pieces).shape, (Shape{2, 3, 5}));
  EXPECT_EQ(b.value(pieces + 2).shape, (Shape{2, 1, 5})) << "the last piece is the smaller";
  EXPECT_EQ(b.value(padded).shape, (Shape{2, 10, 5}));
  EXPECT_EQ(b.value(all).shape, Shape{});
  EXPECT_EQ(b.value(none).shape, (Shape{2, 7, 5}));
}

TEST(ShapeInference, UnevenSplitBeforeOpsetEighteenIsRefused) {
  Builder b;
  b.node("Split", {b.input({7})}, {}, 2);
  EXPECT_NE(errorOf(b.graph, 17).find("cannot cut axis 0 of extent 7 into 2 equal pieces"),
            std::string::npos);
}

TEST(ShapeInference, WindowsFollowOnnxArithmetic) {
  Builder b;
  const auto x = b.input({1, 3, 224, 224});
  const auto conv = b.node("Conv", {x, b.input({64, 3, 7, 7})},
                           {{"strides", std::vector<std::int64_t>{2, 2}},
                            {"pads", std::vector<std::int64_t>{3, 3, 3, 3}}});
  const auto same = b.node("MaxPool", {conv},
                           {{"kernel_shape", std::vector<std::int64_t>{3, 3}},
                            {"strides", std::vector<std::int64_t>{2, 2}},
                            {"auto_pad", std::string("SAME_UPPER")}});
  const auto ceil = b.node("AveragePool", {conv},
                           {{"kernel_shape", std::vector<std::int64_t>{2, 2}},
                            {"strides", std::vector<std::int64_t>{3, 3}},
                            {"ceil_mode", std::int64_t{1}}});
  const auto up = b.node("ConvTranspose", {conv, b.input({64, 8, 4, 4})},
                         {{"strides", std::vector<std::int64_t>{2, 2}},
                          {"pads", std::vector<std::int64_t>{1, 1, 1, 1}}});
  inferShapes(b.graph, 17);
  EXPECT_EQ(b.value(conv).shape, (Shape{1, 64, 112, 112}));
  EXPECT_EQ(b.value(same).shape, (Shape{1, 64, 56, 56}));
  EXPECT_EQ(b.value(ceil).shape, (Shape{1, 64, 38, 38}));
  EXPECT_EQ(b.value(up).shape, (Shape{1, 8, 224, 224}));
}

// The blocked layout's `layout` attribute (graph/BlockedLayout.h): windows and reductions cover
// the spatial axes, and the channels of a block follow them.
TEST(ShapeInference, BlockedPoolingAndNormalisationKeepTheChannelBlock) {
  Builder b;
  const auto x = b.input({1, 4, 112, 112, 16});
  const auto pooled = b.node("MaxPool", {x},
                             {{"kernel_shape", std::vector<std::int64_t>{3, 3}},
                              {"strides", std::vector<std::int64_t>{2, 2}},
                              {"pads", std::vector<std::int64_t>{1, 1, 1, 1}},
                              {"layout", std::string("NCHW16c")}});
  const auto global = b.node("GlobalAveragePool", {pooled}, {{"layout", std::string("NCHW16c")}});
  std::vector<ValueId> normInputs = {x};
  for (int i = 0; i < 4; ++i)
    normInputs.push_back(b.input({64}));
  const auto normalised =
      b.node("BatchNormalization", normInputs, {{"layout", std::string("NCHW16c")}});
  inferShapes(b.graph, 17);
  EXPECT_EQ(b.value(pooled).shape, (Shape{1, 4, 56, 56, 16}));
  EXPECT_EQ(b.value(global).shape, (Shape{1, 4, 1, 1, 16}));
  EXPECT_EQ(b.value(normalised).shape, (Shape{1, 4, 112, 112, 16}));

  Builder wrongBlock;
  wrongBlock.node("GlobalMaxPool", {wrongBlock.input({1, 4, 7, 7, 8})},
                  {{"layout", std::string("NCHW16c")}});
  EXPECT_NE(errorOf(wrongBlock.graph).find("is not [N, C/x, spatial..., x] with x = 16"),
            std::string::npos);
  Builder notBlocked;
  notBlocked.node("GlobalMaxPool", {notBlocked.input({1, 4, 7, 7})},
                  {{"layout", std::string("NCHW")}});
  EXPECT_NE(errorOf(notBlocked.graph).find("layout must be NCHW<x>c"), std::string::npos);
}

TEST(ShapeInference, MatMulPromotesVectorsAndBroadcastsBatches) {
  Builder b;
  const auto batched = b.node("MatMul", {b.input({5, 1, 2, 3}), b.input({4, 3, 6})});
  const auto vector = b.node("MatMul", {b.input({3}), b.input({2, 3, 6})});
  inferShapes(b.graph, 17);
  EXPECT_EQ(b.value(batched).shape, (Shape{5, 4, 2, 6}));
  EXPECT_EQ(b.value(vector).shape, (Shape{2, 6}));
}

TEST(ShapeInference, ErrorsNameTheNodeAndTheCause) {
  {
    Builder b;
    b.node("Add", {b.input({2, 3}), b.input({4, 3})});
    EXPECT_NE(errorOf(b.graph).find("node 'Add_node': shape inference failed: Add cannot "
                                    "broadcast its input shapes together (2x3, 4x3)"),
              std::string::npos);
  }
  {
    Builder b;
    b.node("Reshape", {b.input({2, 3}), b.input({2}, DataType::Int64)});
    EXPECT_NE(errorOf(b.graph).find("is only known at run time, so its output shape is dynamic"),
              std::string::npos);
  }
  {
    Builder b;
    b.node("Gather", {b.input({2, 3})});
    EXPECT_NE(errorOf(b.graph).find("Gather takes 2 inputs, not 1"), std::string::npos);
  }
  {
    Builder b;
    b.node("Reshape", {b.input({2, 3}), b.ints({4, -1})});
    EXPECT_NE(errorOf(b.graph).find("cannot infer the -1 in [4, -1] for an input of 2x3"),
              std::string::npos);
  }
}

} // namespace

namespace {

// Values the evaluator must not fold: an int64 overflow is left to run time, not wrapped.
TEST(ShapeInference, OverflowingShapeArithmeticIsNotEvaluated) {
  Builder b;
  const auto huge = b.node("Mul", {b.ints({INT64_MAX / 2 + 1}), b.ints({2})});
  b.node("Reshape", {b.input({2, 3}), huge});
  EXPECT_NE(errorOf(b.graph).find("is only known at run time"), std::string::npos);
}

TEST(ShapeInference, CastToBoolIsNonzeroAndOutOfRangeFloatsAreNotEvaluated) {
  Value half{.name = "h",
             .shape = {2},
             .kind = ValueKind::Constant,
             .hasData = true,
             .floatData = {0.5, 0.0}};
  Value flags{.name = "b", .dtype = DataType::Bool, .shape = {2}};
  const Node toBool{.op = "Cast", .attributes = {{"to", std::int64_t{9}}}};
  ASSERT_TRUE(evaluateNode(toBool, {&half}, flags));
  EXPECT_EQ(flags.intData, (std::vector<std::int64_t>{1, 0}));

  Value big{.name = "x",
            .shape = {1},
            .kind = ValueKind::Constant,
            .hasData = true,
            .floatData = {1e300}};
  Value integer{.name = "i", .dtype = DataType::Int64, .shape = {1}};
  const Node toInt{.op = "Cast", .attributes = {{"to", std::int64_t{7}}}};
  EXPECT_FALSE(evaluateNode(toInt, {&big}, integer));
}

} // namespace
