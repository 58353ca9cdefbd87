// Tests of features/TaskGraph.h, the GAE's input: every column of hand-built tasks against values
// computed by hand from docs/features.md's definitions, the node and edge structure, and the whole
// cpu-znver5 corpus (connected, finite, no op outside the vocabulary, FLOPs adding up to the
// partitioner's). The tasks are built here rather than with MeasureTestSupport.h's builders, which
// pull in code generation; matmulTask and addReluTask below build the same tasks.
#include "features/TaskGraph.h"

#include "graph/OpCost.h"
#include "graph/TaskFile.h"
#include "support/Error.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <numeric>
#include <set>
#include <unistd.h>

namespace clustune::features {
namespace {

using graph::DataType;
using graph::PatternKind;
using graph::Shape;
using graph::Task;
using graph::TaskInput;
using graph::TaskNode;
using graph::TaskValueRef;

constexpr std::size_t kExpectedFeatureCount = 65 + 3 + 6 + 18;

std::size_t column(const std::string& name) {
  const auto& names = taskGraphFeatureNames();
  const auto found = std::find(names.begin(), names.end(), name);
  if (found == names.end())
    ADD_FAILURE() << "no column " << name;
  return static_cast<std::size_t>(found - names.begin());
}

float log2OnePlus(double value) {
  return static_cast<float>(std::log2(1.0 + value));
}

float at(const TaskGraph& graph, std::size_t node, const std::string& name) {
  return graph.features.at(node * graph.featureCount + column(name));
}

// The expected row of a node: zero except the given columns.
using ExpectedRow = std::vector<std::pair<std::string, float>>;

void expectRow(const TaskGraph& graph, std::size_t node, const ExpectedRow& nonZero) {
  std::vector<float> expected(graph.featureCount, 0.0f);
  for (const auto& [name, value] : nonZero)
    expected[column(name)] = value;
  const auto& names = taskGraphFeatureNames();
  for (std::size_t i = 0; i < graph.featureCount; ++i)
    EXPECT_NEAR(graph.features[node * graph.featureCount + i], expected[i],
                1e-5 * std::max(1.0f, std::abs(expected[i])))
        << "node " << node << ", column " << names[i];
}

TaskNode taskNode(const std::string& op, std::vector<TaskValueRef> inputs, Shape shape,
                  PatternKind pattern, graph::Attributes attributes = {}) {
  return TaskNode{.op = op,
                  .attributes = std::move(attributes),
                  .inputs = std::move(inputs),
                  .outputShapes = {std::move(shape)},
                  .outputTypes = {DataType::Float32},
                  .pattern = pattern};
}

TaskInput weight(Shape shape) {
  return {.shape = std::move(shape), .kind = TaskInput::Kind::Weight};
}

// As measure::testing::matmulTask: Y = MatMul(A[m, k], B[k, n]), B a weight.
Task matmulTask(std::int64_t m, std::int64_t n, std::int64_t k) {
  Task task;
  task.inputs = {{.shape = {m, k}}, weight({k, n})};
  task.nodes = {taskNode("MatMul", {TaskValueRef::input(0), TaskValueRef::input(1)}, {m, n},
                         PatternKind::OutEWiseFusable)};
  task.outputs = {TaskValueRef::node(0, 0)};
  graph::canonicalizeTask(task);
  return task;
}

// As measure::testing::addReluTask: Y = Relu(A + B), all [rows, cols].
Task addReluTask(std::int64_t rows, std::int64_t cols) {
  Task task;
  task.inputs = {{.shape = {rows, cols}}, {.shape = {rows, cols}}};
  task.nodes = {taskNode("Add", {TaskValueRef::input(0), TaskValueRef::input(1)}, {rows, cols},
                         PatternKind::ElemWise),
                taskNode("Relu", {TaskValueRef::node(0, 0)}, {rows, cols}, PatternKind::ElemWise)};
  task.outputs = {TaskValueRef::node(1, 0)};
  graph::canonicalizeTask(task);
  return task;
}

// One node reading every input in order.
Task oneNodeTask(const std::string& op, graph::Attributes attributes, std::vector<TaskInput> inputs,
                 Shape output, PatternKind pattern) {
  Task task;
  std::vector<TaskValueRef> operands;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    operands.push_back(TaskValueRef::input(static_cast<int>(i)));
  task.inputs = std::move(inputs);
  task.nodes = {
      taskNode(op, std::move(operands), std::move(output), pattern, std::move(attributes))};
  task.outputs = {TaskValueRef::node(0, 0)};
  return task;
}

using Ints = std::vector<std::int64_t>;

// ResNet's 3×3 stride-2 convolution 64 → 128 channels on 1×64×56×56, with a bias.
Task stridedConvTask() {
  return oneNodeTask("Conv",
                     {{"dilations", Ints{1, 1}},
                      {"group", std::int64_t{1}},
                      {"kernel_shape", Ints{3, 3}},
                      {"pads", Ints{1, 1, 1, 1}},
                      {"strides", Ints{2, 2}}},
                     {{.shape = {1, 64, 56, 56}}, weight({128, 64, 3, 3}), weight({128})},
                     {1, 128, 28, 28}, PatternKind::OutEWiseFusable);
}

void expectWellFormed(const TaskGraph& graph) {
  ASSERT_EQ(graph.features.size(), graph.nodeCount * graph.featureCount);
  for (std::size_t i = 0; i < graph.edges.size(); ++i) {
    const auto [from, to] = graph.edges[i];
    EXPECT_LT(from, to) << "edge " << i;
    EXPECT_GE(from, 0);
    EXPECT_LT(static_cast<std::size_t>(to), graph.nodeCount);
    if (i > 0) {
      EXPECT_LT(graph.edges[i - 1], graph.edges[i]) << "edges sorted, each once";
    }
  }
  for (float value : graph.features)
    EXPECT_TRUE(std::isfinite(value));
}

// Exactly one op column per node; one pattern column per operator node, none for input nodes;
// every one-hot value is 0 or 1.
void expectOneHotExclusive(const TaskGraph& graph, std::size_t operatorCount) {
  const auto& names = taskGraphFeatureNames();
  for (std::size_t node = 0; node < graph.nodeCount; ++node) {
    int ops = 0, patterns = 0;
    for (std::size_t i = 0; i < graph.featureCount; ++i) {
      const bool isOp = names[i].starts_with("op="), isPattern = names[i].starts_with("pattern=");
      if (!isOp && !isPattern)
        continue;
      const float value = graph.features[node * graph.featureCount + i];
      EXPECT_TRUE(value == 0.0f || value == 1.0f) << names[i];
      (isOp ? ops : patterns) += value == 1.0f;
    }
    EXPECT_EQ(ops, 1) << "node " << node;
    EXPECT_EQ(patterns, node < operatorCount ? 1 : 0) << "node " << node;
  }
}

bool connected(const TaskGraph& graph) {
  std::vector<int> component(graph.nodeCount);
  std::iota(component.begin(), component.end(), 0);
  auto root = [&](int node) {
    while (component[node] != node)
      node = component[node] = component[component[node]];
    return node;
  };
  for (const auto& [from, to] : graph.edges)
    component[root(from)] = root(to);
  for (std::size_t node = 0; node < graph.nodeCount; ++node)
    if (root(static_cast<int>(node)) != root(0))
      return false;
  return true;
}

TEST(TaskGraphTest, ColumnNamesMatchFeatureCount) {
  const auto& names = taskGraphFeatureNames();
  const TaskGraph graph = taskGraph(addReluTask(2, 3));
  EXPECT_EQ(names.size(), graph.featureCount);
  EXPECT_EQ(graph.featureCount, kExpectedFeatureCount);
  EXPECT_EQ(kTaskGraphFeatureVersion, 1);
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end()) << "names unique";
  // The documented positions (docs/features.md).
  EXPECT_EQ(names.front(), "op=Conv");
  EXPECT_EQ(names[64], "op=LayerNormalization");
  EXPECT_EQ(names[65], "op=other");
  EXPECT_EQ(names[66], "op=input:activation");
  EXPECT_EQ(names[67], "op=input:weight");
  EXPECT_EQ(names[68], "pattern=ElemWise");
  EXPECT_EQ(names[73], "pattern=Opaque");
  EXPECT_EQ(names[74], "log2_output_elements");
  EXPECT_EQ(names[80], "conv_kernel_h");
  EXPECT_EQ(names.back(), "matmul_batch");
}

// The vocabulary is fixed for feature version 1, which the bundled GAE and cost models were
// trained on; operators registered since then count as op=other. Listing them here keeps the
// choice deliberate: a new registry operator fails this test until it joins the list, or the
// vocabulary with a new feature version.
TEST(TaskGraphTest, VocabularyHoldsEveryVersion1RegistryOpThatCanBeATask) {
  // clang-format off
  const std::set<std::string> registeredAfterVersion1 = {
      "LogSoftmax", "ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp",
      "Selu", "Celu", "ThresholdedRelu", "Softsign", "Shrink", "LessOrEqual", "GreaterOrEqual",
      "Xor", "Sum", "Mean", "PRelu", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh",
      "Asinh", "Acosh", "Atanh", "Mod", "GatherElements", "Trilu", "DepthToSpace",
      "SpaceToDepth", "OneHot", "ReduceProd", "ArgMax", "ArgMin", "Hardmax", "CumSum",
      "InstanceNormalization", "TopK", "Einsum", "Resize", "IsNaN", "IsInf", "CastLike",
      "EyeLike", "LRN", "MeanVarianceNormalization", "GatherND",
      "ScatterElements", "Scatter", "ScatterND", "ReverseSequence", "ConvNCHWc", "DepthwiseConvNCHWc",
      "LayoutTransform"};
  // clang-format on
  const auto& names = taskGraphFeatureNames();
  for (const std::string& op : graph::supportedOps()) {
    const bool hasColumn = std::find(names.begin(), names.end(), "op=" + op) != names.end();
    // Opaque registry ops are shape arithmetic, always folded before partitioning.
    const bool canBeATask = graph::lookupOp(op)->pattern != PatternKind::Opaque;
    EXPECT_EQ(hasColumn, canBeATask && !registeredAfterVersion1.count(op)) << op;
  }
  for (const std::string& op : registeredAfterVersion1)
    EXPECT_TRUE(graph::lookupOp(op)) << op;
}

TEST(TaskGraphTest, StridedConvEveryColumn) {
  const Task task = stridedConvTask();
  const TaskGraph graph = taskGraph(task);
  ASSERT_EQ(graph.nodeCount, 4u);
  EXPECT_EQ(graph.edges, (std::vector<std::pair<int, int>>{{0, 1}, {0, 2}, {0, 3}}));
  // OpCost: 2*N*Cout*prod(out spatial)*(Cin/groups)*prod(kernel) + out elements for the bias.
  const double outputElements = 128.0 * 28 * 28;
  const double flops = 2.0 * 128 * 28 * 28 * 64 * 3 * 3 + outputElements;
  EXPECT_EQ(graph::nodeFlops(task, task.nodes[0]), 115'705'856);
  EXPECT_EQ(flops, 115'705'856.0);
  const double dataBytes = 64.0 * 56 * 56 * 4, weightBytes = 128.0 * 64 * 9 * 4, biasBytes = 512;
  const double bytesRead = dataBytes + weightBytes + biasBytes, outputBytes = outputElements * 4;
  expectRow(graph, 0,
            {{"op=Conv", 1},
             {"pattern=OutEWiseFusable", 1},
             {"log2_output_elements", log2OnePlus(outputElements)},
             {"log2_output_bytes", log2OnePlus(outputBytes)},
             {"log2_flops", log2OnePlus(flops)},
             {"log2_bytes_read", log2OnePlus(bytesRead)},
             {"log2_weight_bytes", log2OnePlus(weightBytes + biasBytes)},
             {"log2_arithmetic_intensity", log2OnePlus(flops / (bytesRead + outputBytes))},
             {"conv_kernel_h", log2OnePlus(3)},
             {"conv_kernel_w", log2OnePlus(3)},
             {"conv_kernel_d", log2OnePlus(1)},
             {"conv_stride", log2OnePlus(2)},
             {"conv_dilation", log2OnePlus(1)},
             {"conv_groups", log2OnePlus(1)},
             {"conv_input_channels", log2OnePlus(64)},
             {"conv_output_channels", log2OnePlus(128)}});
  expectRow(graph, 1,
            {{"op=input:activation", 1},
             {"log2_output_elements", log2OnePlus(64.0 * 56 * 56)},
             {"log2_output_bytes", log2OnePlus(dataBytes)}});
  expectRow(graph, 2,
            {{"op=input:weight", 1},
             {"log2_output_elements", log2OnePlus(128.0 * 64 * 9)},
             {"log2_output_bytes", log2OnePlus(weightBytes)}});
  expectRow(graph, 3,
            {{"op=input:weight", 1},
             {"log2_output_elements", log2OnePlus(128)},
             {"log2_output_bytes", log2OnePlus(biasBytes)}});
  expectOneHotExclusive(graph, 1);
}

TEST(TaskGraphTest, ConvShapesPadToThreeSpatialDimensions) {
  // R3D's 3×3×3 stride-2 convolution: [d, h, w] kernels.
  const TaskGraph conv3d =
      taskGraph(oneNodeTask("Conv", {{"kernel_shape", Ints{3, 1, 7}}, {"strides", Ints{2, 2, 2}}},
                            {{.shape = {1, 64, 8, 28, 28}}, weight({128, 64, 3, 1, 7})},
                            {1, 128, 4, 14, 14}, PatternKind::OutEWiseFusable));
  EXPECT_FLOAT_EQ(at(conv3d, 0, "conv_kernel_d"), log2OnePlus(3));
  EXPECT_FLOAT_EQ(at(conv3d, 0, "conv_kernel_h"), log2OnePlus(1));
  EXPECT_FLOAT_EQ(at(conv3d, 0, "conv_kernel_w"), log2OnePlus(7));
  EXPECT_FLOAT_EQ(at(conv3d, 0, "conv_stride"), log2OnePlus(2));
  EXPECT_FLOAT_EQ(at(conv3d, 0, "conv_dilation"), log2OnePlus(1)) << "absent dilations are 1";
  // A depthwise convolution without kernel_shape (read from the weight), dilated unevenly: the
  // stride and dilation columns hold the largest over the dimensions.
  const TaskGraph depthwise = taskGraph(oneNodeTask(
      "Conv", {{"group", std::int64_t{32}}, {"dilations", Ints{1, 4}}, {"strides", Ints{1, 2}}},
      {{.shape = {1, 32, 56, 56}}, weight({32, 1, 5, 3})}, {1, 32, 52, 27},
      PatternKind::OutEWiseFusable));
  EXPECT_FLOAT_EQ(at(depthwise, 0, "conv_kernel_h"), log2OnePlus(5));
  EXPECT_FLOAT_EQ(at(depthwise, 0, "conv_kernel_w"), log2OnePlus(3));
  EXPECT_FLOAT_EQ(at(depthwise, 0, "conv_kernel_d"), log2OnePlus(1));
  EXPECT_FLOAT_EQ(at(depthwise, 0, "conv_stride"), log2OnePlus(2));
  EXPECT_FLOAT_EQ(at(depthwise, 0, "conv_dilation"), log2OnePlus(4));
  EXPECT_FLOAT_EQ(at(depthwise, 0, "conv_groups"), log2OnePlus(32));
  EXPECT_FLOAT_EQ(at(depthwise, 0, "conv_input_channels"), log2OnePlus(32));
  EXPECT_FLOAT_EQ(at(depthwise, 0, "log2_flops"), log2OnePlus(2.0 * 32 * 52 * 27 * 1 * 5 * 3));
  // DCGAN's ConvTranspose: input channels from the data, output channels from the result.
  const TaskGraph transpose = taskGraph(
      oneNodeTask("ConvTranspose", {{"kernel_shape", Ints{4, 4}}, {"strides", Ints{2, 2}}},
                  {{.shape = {1, 512, 4, 4}}, weight({512, 256, 4, 4})}, {1, 256, 8, 8},
                  PatternKind::OutEWiseFusable));
  EXPECT_FLOAT_EQ(at(transpose, 0, "conv_input_channels"), log2OnePlus(512));
  EXPECT_FLOAT_EQ(at(transpose, 0, "conv_output_channels"), log2OnePlus(256));
  EXPECT_FLOAT_EQ(at(transpose, 0, "log2_flops"), log2OnePlus(2.0 * 512 * 16 * 256 * 16));
  EXPECT_FLOAT_EQ(at(transpose, 0, "matmul_m"), 0.0f);
}

TEST(TaskGraphTest, OneMatMulIsOperatorAndInputNodes) {
  const TaskGraph graph = taskGraph(matmulTask(64, 32, 128));
  ASSERT_EQ(graph.nodeCount, 3u);
  EXPECT_EQ(graph.edges, (std::vector<std::pair<int, int>>{{0, 1}, {0, 2}}));
  const double flops = 2.0 * 64 * 32 * 128, bytesRead = (64.0 * 128 + 128.0 * 32) * 4;
  expectRow(graph, 0,
            {{"op=MatMul", 1},
             {"pattern=OutEWiseFusable", 1},
             {"log2_output_elements", log2OnePlus(64 * 32)},
             {"log2_output_bytes", log2OnePlus(64 * 32 * 4)},
             {"log2_flops", log2OnePlus(flops)},
             {"log2_bytes_read", log2OnePlus(bytesRead)},
             {"log2_weight_bytes", log2OnePlus(128 * 32 * 4)},
             {"log2_arithmetic_intensity", log2OnePlus(flops / (bytesRead + 64 * 32 * 4))},
             {"matmul_m", log2OnePlus(64)},
             {"matmul_n", log2OnePlus(32)},
             {"matmul_k", log2OnePlus(128)},
             {"matmul_batch", log2OnePlus(1)}});
  expectRow(graph, 1,
            {{"op=input:activation", 1},
             {"log2_output_elements", log2OnePlus(64 * 128)},
             {"log2_output_bytes", log2OnePlus(64 * 128 * 4)}});
  expectRow(graph, 2,
            {{"op=input:weight", 1},
             {"log2_output_elements", log2OnePlus(128 * 32)},
             {"log2_output_bytes", log2OnePlus(128 * 32 * 4)}});
  expectOneHotExclusive(graph, 1);
}

TEST(TaskGraphTest, BatchedMatMulAndTransposedGemm) {
  // BERT's attention scores: [1, 12, 128, 64] × [1, 12, 64, 128].
  const TaskGraph scores = taskGraph(
      oneNodeTask("MatMul", {}, {{.shape = {1, 12, 128, 64}}, {.shape = {1, 12, 64, 128}}},
                  {1, 12, 128, 128}, PatternKind::OutEWiseFusable));
  EXPECT_FLOAT_EQ(at(scores, 0, "matmul_batch"), log2OnePlus(12));
  EXPECT_FLOAT_EQ(at(scores, 0, "matmul_m"), log2OnePlus(128));
  EXPECT_FLOAT_EQ(at(scores, 0, "matmul_k"), log2OnePlus(64));
  EXPECT_FLOAT_EQ(at(scores, 0, "log2_weight_bytes"), 0.0f) << "both operands are activations";
  // A classifier: Gemm(A[4, 256], B[128, 256]ᵀ) + C.
  const TaskGraph classifier =
      taskGraph(oneNodeTask("Gemm", {{"transB", std::int64_t{1}}},
                            {{.shape = {4, 256}}, weight({128, 256}), weight({128})}, {4, 128},
                            PatternKind::OutEWiseFusable));
  EXPECT_FLOAT_EQ(at(classifier, 0, "matmul_m"), log2OnePlus(4));
  EXPECT_FLOAT_EQ(at(classifier, 0, "matmul_n"), log2OnePlus(128));
  EXPECT_FLOAT_EQ(at(classifier, 0, "matmul_k"), log2OnePlus(256));
  EXPECT_FLOAT_EQ(at(classifier, 0, "matmul_batch"), log2OnePlus(1));
  EXPECT_FLOAT_EQ(at(classifier, 0, "log2_flops"), log2OnePlus(2.0 * 4 * 128 * 256 + 4 * 128));
  EXPECT_FLOAT_EQ(at(classifier, 0, "log2_weight_bytes"), log2OnePlus((128 * 256 + 128) * 4));
  EXPECT_FLOAT_EQ(at(classifier, 0, "conv_kernel_h"), 0.0f);
}

TEST(TaskGraphTest, AddReluChainEdgesAndFeatures) {
  const TaskGraph graph = taskGraph(addReluTask(8, 16));
  // Add (0) and Relu (1), then the inputs A (2) and B (3).
  ASSERT_EQ(graph.nodeCount, 4u);
  EXPECT_EQ(graph.edges, (std::vector<std::pair<int, int>>{{0, 1}, {0, 2}, {0, 3}}));
  const double elements = 8 * 16, bytes = elements * 4;
  expectRow(graph, 0,
            {{"op=Add", 1},
             {"pattern=ElemWise", 1},
             {"log2_output_elements", log2OnePlus(elements)},
             {"log2_output_bytes", log2OnePlus(bytes)},
             {"log2_flops", log2OnePlus(elements)},
             {"log2_bytes_read", log2OnePlus(2 * bytes)},
             {"log2_arithmetic_intensity", log2OnePlus(elements / (3 * bytes))}});
  expectRow(graph, 1,
            {{"op=Relu", 1},
             {"pattern=ElemWise", 1},
             {"log2_output_elements", log2OnePlus(elements)},
             {"log2_output_bytes", log2OnePlus(bytes)},
             {"log2_flops", log2OnePlus(elements)},
             {"log2_bytes_read", log2OnePlus(bytes)},
             {"log2_arithmetic_intensity", log2OnePlus(elements / (2 * bytes))}});
  for (std::size_t input : {2u, 3u})
    expectRow(graph, input,
              {{"op=input:activation", 1},
               {"log2_output_elements", log2OnePlus(elements)},
               {"log2_output_bytes", log2OnePlus(bytes)}});
  expectOneHotExclusive(graph, 2);
  EXPECT_TRUE(connected(graph));
}

TEST(TaskGraphTest, RepeatedOperandGivesOneEdge) {
  // Y = Mul(X, X) + X: two reads of X by Mul, one by Add.
  Task task;
  task.inputs = {{.shape = {4}}};
  task.nodes = {
      taskNode("Mul", {TaskValueRef::input(0), TaskValueRef::input(0)}, {4}, PatternKind::ElemWise),
      taskNode("Add", {TaskValueRef::node(0, 0), TaskValueRef::input(0)}, {4},
               PatternKind::ElemWise)};
  task.outputs = {TaskValueRef::node(1, 0)};
  const TaskGraph graph = taskGraph(task);
  EXPECT_EQ(graph.edges, (std::vector<std::pair<int, int>>{{0, 1}, {0, 2}, {1, 2}}));
  // Bytes read count every operand read: the kernel loads X twice.
  EXPECT_FLOAT_EQ(at(graph, 0, "log2_bytes_read"), log2OnePlus(32));
  expectWellFormed(graph);
}

TEST(TaskGraphTest, OpRegisteredAfterTheVocabularyIsOther) {
  const TaskGraph graph =
      taskGraph(oneNodeTask("LogSoftmax", {{"axis", std::int64_t{1}}}, {{.shape = {4, 8}}}, {4, 8},
                            PatternKind::CommReduce));
  EXPECT_EQ(at(graph, 0, "op=other"), 1.0f);
  EXPECT_EQ(at(graph, 0, "pattern=CommReduce"), 1.0f);
  EXPECT_EQ(at(graph, 0, "log2_flops"), log2OnePlus(3.0 * 4 * 8));
  expectOneHotExclusive(graph, 1);
}

TEST(TaskGraphTest, UnknownOpIsOther) {
  const TaskGraph graph = taskGraph(
      oneNodeTask("NonMaxSuppression", {}, {{.shape = {10, 4}}}, {3}, PatternKind::Opaque));
  EXPECT_EQ(at(graph, 0, "op=other"), 1.0f);
  EXPECT_EQ(at(graph, 0, "pattern=Opaque"), 1.0f);
  EXPECT_EQ(at(graph, 0, "log2_flops"), 0.0f);
  EXPECT_EQ(at(graph, 0, "log2_arithmetic_intensity"), 0.0f);
  expectOneHotExclusive(graph, 1);
}

TEST(TaskGraphTest, MalformedTasksThrow) {
  Task forward = addReluTask(2, 2);
  forward.nodes[0].inputs[0] = TaskValueRef::node(1, 0); // Add reads Relu, a later node
  EXPECT_THROW(taskGraph(forward), Error);
  Task missingInput = matmulTask(2, 2, 2);
  missingInput.nodes[0].inputs[1] = TaskValueRef::input(5);
  EXPECT_THROW(taskGraph(missingInput), Error);
  Task missingOutput = addReluTask(2, 2);
  missingOutput.nodes[1].inputs[0] = TaskValueRef::node(0, 1); // Add has one output
  EXPECT_THROW(taskGraph(missingOutput), Error);
  Task convWithoutWeight = stridedConvTask();
  convWithoutWeight.nodes[0].inputs.resize(1);
  EXPECT_THROW(taskGraph(convWithoutWeight), Error);
  Task noOutputType = matmulTask(2, 2, 2);
  noOutputType.nodes[0].outputTypes.clear();
  EXPECT_THROW(taskGraph(noOutputType), Error);
}

TEST(TaskGraphTest, CorpusTasks) {
  const std::string source = std::string(CLUSTUNE_SOURCE_DIR) + "/data/cpu-znver5/tasks.jsonl.gz";
  ASSERT_TRUE(std::filesystem::exists(source)) << source;
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("clustune-taskgraph-" + std::to_string(::getpid()) + ".jsonl"))
                               .string();
  ASSERT_EQ(std::system(("zcat '" + source + "' > '" + path + "'").c_str()), 0);
  const std::vector<Task> tasks = graph::readTaskFile(path);
  std::filesystem::remove(path);
  ASSERT_EQ(tasks.size(), 407u);

  const std::size_t other = column("op=other");
  std::size_t convNodes = 0;
  for (const Task& task : tasks) {
    SCOPED_TRACE("task " + task.key + " (" + task.anchor + ")");
    const TaskGraph graph = taskGraph(task);
    ASSERT_GT(graph.nodeCount, 0u);
    ASSERT_EQ(graph.nodeCount, task.nodes.size() + task.inputs.size());
    EXPECT_EQ(graph.featureCount, taskGraphFeatureNames().size());
    EXPECT_EQ(graph.anchor, task.anchor);
    expectWellFormed(graph);
    expectOneHotExclusive(graph, task.nodes.size());
    EXPECT_TRUE(connected(graph));
    for (std::size_t node = 0; node < graph.nodeCount; ++node)
      EXPECT_EQ(graph.features[node * graph.featureCount + other], 0.0f)
          << "op " << (node < task.nodes.size() ? task.nodes[node].op : "input");
    // Task nodes cost as the partitioner costed the graph nodes.
    std::int64_t flops = 0;
    for (const TaskNode& node : task.nodes) {
      flops += graph::nodeFlops(task, node);
      convNodes += node.op == "Conv";
    }
    EXPECT_EQ(flops, task.flops);
  }
  EXPECT_EQ(convNodes, 254u);
}

} // namespace
} // namespace clustune::features
