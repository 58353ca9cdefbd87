// FLOP conventions of nodeFlops on hand-built nodes; each expectation is the formula of
// scripts/count_flops.py written out, so a drift between the two counters shows up here.
#include "graph/OpCost.h"

#include <gtest/gtest.h>

using namespace clustune::graph;

namespace {

class NodeBuilder {
public:
  ValueId tensor(Shape shape, DataType dtype = DataType::Float32) {
    return graph.addValue(Value{.name = "v" + std::to_string(graph.values.size()),
                                .dtype = dtype,
                                .shape = std::move(shape),
                                .kind = ValueKind::Input});
  }

  const Node& node(const std::string& op, std::vector<ValueId> inputs, Shape outputShape,
                   Attributes attributes = {}, DataType outputType = DataType::Float32) {
    const auto output = graph.addValue(Value{.name = "out" + std::to_string(graph.values.size()),
                                             .dtype = outputType,
                                             .shape = std::move(outputShape)});
    const auto info = lookupOp(op);
    const auto id = graph.addNode(Node{.op = op,
                                       .attributes = std::move(attributes),
                                       .inputs = std::move(inputs),
                                       .outputs = {output},
                                       .pattern = info ? info->pattern : PatternKind::Opaque});
    return graph.nodes[id];
  }

  std::int64_t flops(const Node& node) const { return nodeFlops(graph, node); }

  Graph graph;
};

} // namespace

TEST(OpCost, GroupedConvWithAndWithoutBias) {
  NodeBuilder b;
  const auto x = b.tensor({1, 32, 56, 56});
  const auto w = b.tensor({64, 8, 3, 3}); // groups = 4: Cin/groups = 8
  const auto bias = b.tensor({64});
  const Attributes attributes{{"group", std::int64_t{4}},
                              {"kernel_shape", std::vector<std::int64_t>{3, 3}},
                              {"pads", std::vector<std::int64_t>{1, 1, 1, 1}}};
  const std::int64_t macs = 1LL * 64 * 56 * 56 * 8 * 3 * 3;
  EXPECT_EQ(b.flops(b.node("Conv", {x, w}, {1, 64, 56, 56}, attributes)), 2 * macs);
  EXPECT_EQ(b.flops(b.node("Conv", {x, w, bias}, {1, 64, 56, 56}, attributes)),
            2 * macs + 64 * 56 * 56);
  // An omitted optional bias is no bias.
  EXPECT_EQ(b.flops(b.node("Conv", {x, w, kNoValue}, {1, 64, 56, 56}, attributes)), 2 * macs);
}

TEST(OpCost, StridedConvCountsOutputPixels) {
  NodeBuilder b;
  const auto x = b.tensor({2, 3, 224, 224});
  const auto w = b.tensor({64, 3, 7, 7});
  EXPECT_EQ(b.flops(b.node("Conv", {x, w}, {2, 64, 112, 112})), 2LL * 2 * 64 * 112 * 112 * 3 * 49);
}

TEST(OpCost, ConvTransposeCountsInputPixels) {
  NodeBuilder b;
  const auto x = b.tensor({1, 16, 8, 8});
  const auto w = b.tensor({16, 8, 4, 4}); // [Cin, Cout/groups, k, k]
  const auto bias = b.tensor({8});
  const std::int64_t macs = 1LL * 16 * 8 * 8 * 8 * 4 * 4;
  EXPECT_EQ(b.flops(b.node("ConvTranspose", {x, w}, {1, 8, 16, 16})), 2 * macs);
  EXPECT_EQ(b.flops(b.node("ConvTranspose", {x, w, bias}, {1, 8, 16, 16})), 2 * macs + 8 * 16 * 16);
}

TEST(OpCost, GemmHonoursTransposesAndBias) {
  NodeBuilder b;
  const auto a = b.tensor({4, 256});
  const auto weight = b.tensor({128, 256});
  const auto c = b.tensor({128});
  EXPECT_EQ(b.flops(b.node("Gemm", {a, weight, c}, {4, 128}, {{"transB", std::int64_t{1}}})),
            2LL * 4 * 128 * 256 + 4 * 128);
  const auto aTransposed = b.tensor({256, 4});
  const auto weightPlain = b.tensor({256, 128});
  EXPECT_EQ(
      b.flops(b.node("Gemm", {aTransposed, weightPlain}, {4, 128}, {{"transA", std::int64_t{1}}})),
      2LL * 4 * 128 * 256);
}

TEST(OpCost, MatMulBroadcastsBatchDimensions) {
  NodeBuilder b;
  const auto left = b.tensor({2, 1, 8, 16});
  const auto right = b.tensor({3, 16, 32});
  EXPECT_EQ(b.flops(b.node("MatMul", {left, right}, {2, 3, 8, 32})), 2LL * (2 * 3) * 8 * 32 * 16);
}

TEST(OpCost, MatMulTreatsOneDimensionalOperandsAsNumpy) {
  NodeBuilder b;
  const auto vector = b.tensor({16});
  const auto matrix = b.tensor({4, 16, 32});
  EXPECT_EQ(b.flops(b.node("MatMul", {vector, matrix}, {4, 32})), 2LL * 4 * 1 * 32 * 16);
  const auto matrixLeft = b.tensor({8, 16});
  EXPECT_EQ(b.flops(b.node("MatMul", {matrixLeft, vector}, {8})), 2LL * 8 * 1 * 16);
}

TEST(OpCost, Pooling) {
  NodeBuilder b;
  const auto x = b.tensor({1, 64, 56, 56});
  EXPECT_EQ(b.flops(b.node("MaxPool", {x}, {1, 64, 28, 28},
                           {{"kernel_shape", std::vector<std::int64_t>{3, 3}}})),
            64LL * 28 * 28 * 9);
  EXPECT_EQ(b.flops(b.node("AveragePool", {x}, {1, 64, 28, 28},
                           {{"kernel_shape", std::vector<std::int64_t>{2, 2}}})),
            64LL * 28 * 28 * 4);
  EXPECT_EQ(b.flops(b.node("GlobalAveragePool", {x}, {1, 64, 1, 1})), 64LL * 56 * 56);
  EXPECT_EQ(b.flops(b.node("GlobalMaxPool", {x}, {1, 64, 1, 1})), 64LL * 56 * 56);
}

TEST(OpCost, ReductionsAndNormalisations) {
  NodeBuilder b;
  const auto x = b.tensor({2, 128, 768});
  EXPECT_EQ(b.flops(b.node("Softmax", {x}, {2, 128, 768})), 3LL * 2 * 128 * 768);
  EXPECT_EQ(b.flops(b.node("LogSoftmax", {x}, {2, 128, 768})), 3LL * 2 * 128 * 768);
  EXPECT_EQ(
      b.flops(b.node("LayerNormalization", {x, b.tensor({768}), b.tensor({768})}, {2, 128, 768})),
      7LL * 2 * 128 * 768);
  EXPECT_EQ(b.flops(b.node("ReduceMean", {x}, {2, 128, 1})), 2LL * 128 * 768);
  EXPECT_EQ(b.flops(b.node("ReduceSum", {x}, {2, 1, 768})), 2LL * 128 * 768);
  EXPECT_EQ(b.flops(b.node("ReduceLogSum", {x}, {2, 1, 768})), 2LL * 128 * 768);
  for (const char* op : {"ReduceL1", "ReduceL2", "ReduceSumSquare"})
    EXPECT_EQ(b.flops(b.node(op, {x}, {2, 128, 1})), 2 * 2LL * 128 * 768) << op;
  EXPECT_EQ(b.flops(b.node("ReduceLogSumExp", {x}, {2, 128, 1})), 3 * 2LL * 128 * 768);
  for (const char* op : {"ReduceProd", "ArgMax", "ArgMin", "CumSum", "TopK"})
    EXPECT_EQ(b.flops(b.node(op, {x}, {2, 128, 1})), 2LL * 128 * 768) << op;
  EXPECT_EQ(b.flops(b.node("Hardmax", {x}, {2, 128, 768})), 2 * 2LL * 128 * 768);
  EXPECT_EQ(b.flops(b.node("LRN", {x}, {2, 128, 768}, {{"size", std::int64_t{5}}})),
            14 * 2LL * 128 * 768);
  EXPECT_EQ(b.flops(b.node("MeanVarianceNormalization", {x}, {2, 128, 768})), 6 * 2LL * 128 * 768);
  EXPECT_EQ(b.flops(b.node("InstanceNormalization", {x, b.tensor({128}), b.tensor({128})},
                           {2, 128, 768})),
            7LL * 2 * 128 * 768);
  const auto image = b.tensor({1, 32, 10, 10});
  EXPECT_EQ(b.flops(b.node("BatchNormalization",
                           {image, b.tensor({32}), b.tensor({32}), b.tensor({32}), b.tensor({32})},
                           {1, 32, 10, 10})),
            2LL * 32 * 100);
}

TEST(OpCost, ElementWiseCountsFloatOutputsOnly) {
  NodeBuilder b;
  const auto x = b.tensor({4, 8});
  const auto row = b.tensor({8});
  EXPECT_EQ(b.flops(b.node("Relu", {x}, {4, 8})), 32);
  EXPECT_EQ(b.flops(b.node("Add", {x, row}, {4, 8})), 32); // broadcast: output elements
  EXPECT_EQ(b.flops(b.node("Erf", {x}, {4, 8})), 32);
  EXPECT_EQ(b.flops(b.node("Sum", {x, row, x}, {4, 8})), 32); // variadic: output elements
  EXPECT_EQ(b.flops(b.node("PRelu", {x, row}, {4, 8})), 32);
  EXPECT_EQ(b.flops(b.node("Sin", {x}, {4, 8})), 32);
  EXPECT_EQ(b.flops(b.node("Mod", {x, row}, {4, 8})), 32);
  EXPECT_EQ(b.flops(b.node("GreaterOrEqual", {x, row}, {4, 8}, {}, DataType::Bool)), 0);
  const auto shape = b.tensor({4}, DataType::Int64);
  EXPECT_EQ(b.flops(b.node("Mul", {shape, shape}, {4}, {}, DataType::Int64)), 0);
  EXPECT_EQ(b.flops(b.node("Equal", {x, x}, {4, 8}, {}, DataType::Bool)), 0);
  EXPECT_EQ(b.flops(b.node("Cast", {x}, {4, 8}, {}, DataType::Float16)), 0);
  EXPECT_EQ(b.flops(b.node("CastLike", {x, row}, {4, 8})), 0);
  EXPECT_EQ(b.flops(b.node("IsNaN", {x}, {4, 8}, {}, DataType::Bool)), 0);
  EXPECT_EQ(b.flops(b.node("Identity", {x}, {4, 8})), 0);
  EXPECT_EQ(b.flops(b.node("Dropout", {x}, {4, 8})), 0);
}

TEST(OpCost, EinsumCountsAMultiplyPerExtraOperandAndAnAddWhenSumming) {
  NodeBuilder b;
  const auto left = b.tensor({5, 2, 3});
  const auto right = b.tensor({5, 3, 4});
  auto einsum = [](const char* equation) {
    return Attributes{{"equation", std::string(equation)}};
  };
  EXPECT_EQ(b.flops(b.node("Einsum", {left, right}, {5, 2, 4}, einsum("bij,bjk->bik"))),
            2LL * 5 * 2 * 4 * 3); // as MatMul
  const auto matrix = b.tensor({3, 4});
  EXPECT_EQ(b.flops(b.node("Einsum", {matrix}, {4, 3}, einsum("ij->ji"))), 0);
  EXPECT_EQ(b.flops(b.node("Einsum", {matrix}, {3}, einsum("ij->i"))), 12);
  EXPECT_EQ(b.flops(b.node("Einsum", {matrix}, {3}, einsum("ij->q"))), 0); // refused later
}

TEST(OpCost, LayoutAndOpaqueOpsAreFree) {
  NodeBuilder b;
  const auto x = b.tensor({4, 8});
  EXPECT_EQ(b.flops(b.node("Reshape", {x}, {32})), 0);
  EXPECT_EQ(b.flops(b.node("Transpose", {x}, {8, 4})), 0);
  EXPECT_EQ(b.flops(b.node("Concat", {x, x}, {8, 8})), 0);
  EXPECT_EQ(b.flops(b.node("SomeCustomOp", {x}, {4, 8})), 0);
}

TEST(OpCost, TaskNodesCostLikeGraphNodes) {
  // Conv(X, W, bias) then Relu, as a graph and as the task the partitioner would cut from it.
  NodeBuilder b;
  const Attributes attributes{{"strides", std::vector<std::int64_t>{2, 2}}};
  const auto x = b.tensor({1, 16, 32, 32});
  const auto w = b.tensor({32, 16, 3, 3});
  const auto bias = b.tensor({32});
  const Node& conv = b.node("Conv", {x, w, bias}, {1, 32, 15, 15}, attributes);
  const Node& relu = b.node("Relu", {conv.outputs[0]}, {1, 32, 15, 15});
  Task task;
  task.inputs = {{.shape = {1, 16, 32, 32}},
                 {.shape = {32, 16, 3, 3}, .kind = TaskInput::Kind::Weight},
                 {.shape = {32}, .kind = TaskInput::Kind::Weight}};
  task.nodes = {
      TaskNode{.op = "Conv",
               .attributes = attributes,
               .inputs = {TaskValueRef::input(0), TaskValueRef::input(1), TaskValueRef::input(2)},
               .outputShapes = {{1, 32, 15, 15}},
               .outputTypes = {DataType::Float32}},
      TaskNode{.op = "Relu",
               .attributes = {},
               .inputs = {TaskValueRef::node(0, 0)},
               .outputShapes = {{1, 32, 15, 15}},
               .outputTypes = {DataType::Float32}}};
  EXPECT_EQ(nodeFlops(task, task.nodes[0]), b.flops(b.graph.nodes[0]));
  EXPECT_EQ(nodeFlops(task, task.nodes[0]), 2LL * 32 * 15 * 15 * 16 * 9 + 32 * 15 * 15);
  EXPECT_EQ(nodeFlops(task, task.nodes[1]), b.flops(relu));
  // An omitted bias is no bias, in a task too.
  task.nodes[0].inputs[2] = TaskValueRef::omitted();
  EXPECT_EQ(nodeFlops(task, task.nodes[0]), 2LL * 32 * 15 * 15 * 16 * 9);
}

TEST(OpCost, MatrixProductDimensions) {
  const MatrixProduct batched = matMulProduct({2, 1, 8, 4}, {3, 4, 5});
  EXPECT_EQ(batched.batch, 6);
  EXPECT_EQ(batched.m, 8);
  EXPECT_EQ(batched.n, 5);
  EXPECT_EQ(batched.k, 4);
  const MatrixProduct vector = matMulProduct({4}, {4, 6}); // a row vector
  EXPECT_EQ(vector.m, 1);
  EXPECT_EQ(vector.n, 6);
  const MatrixProduct gemm = gemmProduct({256, 4}, {128, 256}, true, true);
  EXPECT_EQ(gemm.m, 4);
  EXPECT_EQ(gemm.n, 128);
  EXPECT_EQ(gemm.k, 256);
  EXPECT_EQ(gemm.batch, 1);
}
