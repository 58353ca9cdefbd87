// See TaskGraph.h. Every column is computed from the task alone (shapes, dtypes, attributes), with
// graph::nodeFlops's conventions for FLOPs so that a node's FLOPs add up to the task's; the
// column order is fixed by the tables below and documented in docs/features.md.
#include "features/TaskGraph.h"

#include "graph/OpCost.h"
#include "support/Error.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <string_view>

namespace clustune::features {
namespace {

using graph::PatternKind;
using graph::Shape;
using graph::TaskValueRef;

// Every registry op that could appear in a task when feature version 1 was fixed, in
// graph/OpRegistry.cpp's order; the Opaque shape ops (Shape, Constant, ConstantOfShape, Range,
// Size) are always folded away and have no column. Ops registered since fall into op=other, as
// the bundled models were trained on these columns. Appending or reordering changes the columns:
// bump kTaskGraphFeatureVersion.
// clang-format off
constexpr std::array<std::string_view, 65> kOpVocabulary = {
    // Complex ops that anchor a task.
    "Conv", "ConvTranspose", "Gemm", "MatMul",
    // Element-wise.
    "Relu", "Clip", "Sigmoid", "Tanh", "Erf", "HardSigmoid", "HardSwish", "LeakyRelu", "Elu",
    "Gelu", "Softplus", "Exp", "Log", "Sqrt", "Neg", "Abs", "Reciprocal", "Floor", "Ceil", "Round",
    "Sign", "Not", "Cast", "Identity", "Dropout", "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min",
    "Equal", "Less", "Greater", "And", "Or", "Where",
    "BatchNormalization",
    // Layout and indexing.
    "Reshape", "Flatten", "Transpose", "Concat", "Slice", "Split", "Gather", "Squeeze",
    "Unsqueeze", "Expand", "Pad", "Tile",
    // Reductions.
    "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "ReduceMean", "ReduceSum",
    "ReduceMax", "ReduceMin", "Softmax", "LayerNormalization"};
// clang-format on

static_assert(std::none_of(kOpVocabulary.begin(), kOpVocabulary.end(),
                           [](std::string_view op) { return op.empty(); }),
              "kOpVocabulary's size must match its entries");

constexpr std::array kPatternKinds = {PatternKind::ElemWise,        PatternKind::Broadcast,
                                      PatternKind::Injective,       PatternKind::CommReduce,
                                      PatternKind::OutEWiseFusable, PatternKind::Opaque};

// The numeric columns after the one-hot blocks, in order; all log2(1 + x).
constexpr std::array<std::string_view, 18> kNumericColumns = {"log2_output_elements",
                                                              "log2_output_bytes",
                                                              "log2_flops",
                                                              "log2_bytes_read",
                                                              "log2_weight_bytes",
                                                              "log2_arithmetic_intensity",
                                                              "conv_kernel_h",
                                                              "conv_kernel_w",
                                                              "conv_kernel_d",
                                                              "conv_stride",
                                                              "conv_dilation",
                                                              "conv_groups",
                                                              "conv_input_channels",
                                                              "conv_output_channels",
                                                              "matmul_m",
                                                              "matmul_n",
                                                              "matmul_k",
                                                              "matmul_batch"};
static_assert(std::none_of(kNumericColumns.begin(), kNumericColumns.end(),
                           [](std::string_view name) { return name.empty(); }),
              "kNumericColumns's size must match its entries");

// Column positions.
constexpr std::size_t kOpOther = kOpVocabulary.size();
constexpr std::size_t kOpInputActivation = kOpOther + 1;
constexpr std::size_t kOpInputWeight = kOpOther + 2;
constexpr std::size_t kPatternBegin = kOpOther + 3;
constexpr std::size_t kNumericBegin = kPatternBegin + kPatternKinds.size();
constexpr std::size_t kFeatureCount = kNumericBegin + kNumericColumns.size();

enum Numeric : std::size_t {
  kOutputElements = kNumericBegin,
  kOutputBytes,
  kFlops,
  kBytesRead,
  kWeightBytes,
  kArithmeticIntensity,
  kConvKernelH,
  kConvKernelW,
  kConvKernelD,
  kConvStride,
  kConvDilation,
  kConvGroups,
  kConvInputChannels,
  kConvOutputChannels,
  kMatMulM,
  kMatMulN,
  kMatMulK,
  kMatMulBatch,
};
static_assert(kMatMulBatch + 1 == kFeatureCount);

float log2OnePlus(double value) {
  return static_cast<float>(std::log2(1.0 + value));
}
float log2OnePlus(std::int64_t value) {
  return log2OnePlus(static_cast<double>(value));
}

std::size_t opColumn(const std::string& op) {
  const auto found = std::find(kOpVocabulary.begin(), kOpVocabulary.end(), op);
  return found == kOpVocabulary.end() ? kOpOther
                                      : static_cast<std::size_t>(found - kOpVocabulary.begin());
}

std::size_t patternColumn(PatternKind pattern) {
  const auto found = std::find(kPatternKinds.begin(), kPatternKinds.end(), pattern);
  return kPatternBegin + static_cast<std::size_t>(found - kPatternKinds.begin());
}

std::int64_t maxOf(const std::vector<std::int64_t>& values) {
  return values.empty() ? 1 : *std::max_element(values.begin(), values.end());
}

// Checks what the features and graph::nodeFlops rely on, so that a hand-built or corrupt task is
// reported rather than read out of bounds.
void validate(const graph::Task& task) {
  for (std::size_t position = 0; position < task.nodes.size(); ++position) {
    const graph::TaskNode& node = task.nodes[position];
    const ErrorContext context{.node = node.op + " #" + std::to_string(position), .task = task.key};
    if (node.outputShapes.empty() || node.outputShapes.size() != node.outputTypes.size())
      throw Error("task graph: node needs as many output types as output shapes, at least one",
                  context);
    for (const TaskValueRef& input : node.inputs) {
      const bool valid =
          input.kind == TaskValueRef::Kind::Omitted ||
          (input.kind == TaskValueRef::Kind::Input && input.index >= 0 &&
           static_cast<std::size_t>(input.index) < task.inputs.size()) ||
          (input.kind == TaskValueRef::Kind::Node && input.index >= 0 &&
           static_cast<std::size_t>(input.index) < position && input.output >= 0 &&
           static_cast<std::size_t>(input.output) < task.nodes[input.index].outputShapes.size());
      if (!valid)
        throw Error("task graph: operand refers to no task input or earlier node output", context);
    }
    auto operandRank = [&](std::size_t slot) -> std::size_t {
      if (slot >= node.inputs.size() || node.inputs[slot].kind == TaskValueRef::Kind::Omitted)
        return 0;
      const TaskValueRef& input = node.inputs[slot];
      return input.kind == TaskValueRef::Kind::Input
                 ? task.inputs[input.index].shape.size()
                 : task.nodes[input.index].outputShapes[input.output].size();
    };
    const bool isConv = node.op == "Conv" || node.op == "ConvTranspose";
    if (isConv && (operandRank(0) < 3 || operandRank(1) < 3 || node.outputShapes[0].size() < 3))
      throw Error("task graph: " + node.op + " needs data and weight operands of rank 3 or more",
                  context);
    if (node.op == "Gemm" && (operandRank(0) != 2 || operandRank(1) != 2))
      throw Error("task graph: Gemm needs two operands of rank 2", context);
    if (node.op == "MatMul" && (operandRank(0) == 0 || operandRank(1) == 0))
      throw Error("task graph: MatMul needs two operands of rank 1 or more", context);
  }
}

class FeatureWriter {
public:
  FeatureWriter(const graph::Task& task, TaskGraph& graph) : task_(task), graph_(graph) {}

  void writeOperator(std::size_t row, const graph::TaskNode& node) {
    set(row, opColumn(node.op), 1.0f);
    set(row, patternColumn(node.pattern), 1.0f);

    std::int64_t outputElements = 0, outputBytes = 0;
    for (std::size_t slot = 0; slot < node.outputShapes.size(); ++slot) {
      outputElements += graph::elementCount(node.outputShapes[slot]);
      outputBytes += graph::elementCount(node.outputShapes[slot]) *
                     graph::dataTypeBytes(node.outputTypes[slot]);
    }
    std::int64_t bytesRead = 0, weightBytes = 0;
    for (const TaskValueRef& input : node.inputs) {
      if (input.kind == TaskValueRef::Kind::Input) {
        const graph::TaskInput& tensor = task_.inputs[input.index];
        bytesRead += tensor.bytes();
        if (tensor.kind == graph::TaskInput::Kind::Weight)
          weightBytes += tensor.bytes();
      } else if (input.kind == TaskValueRef::Kind::Node) {
        const graph::TaskNode& producer = task_.nodes[input.index];
        bytesRead += graph::elementCount(producer.outputShapes[input.output]) *
                     graph::dataTypeBytes(producer.outputTypes[input.output]);
      }
    }
    const std::int64_t flops = graph::nodeFlops(task_, node);
    const std::int64_t traffic = bytesRead + outputBytes;
    set(row, kOutputElements, log2OnePlus(outputElements));
    set(row, kOutputBytes, log2OnePlus(outputBytes));
    set(row, kFlops, log2OnePlus(flops));
    set(row, kBytesRead, log2OnePlus(bytesRead));
    set(row, kWeightBytes, log2OnePlus(weightBytes));
    set(row, kArithmeticIntensity,
        traffic > 0 ? log2OnePlus(static_cast<double>(flops) / static_cast<double>(traffic))
                    : 0.0f);

    if (node.op == "Conv" || node.op == "ConvTranspose")
      writeConv(row, node);
    else if (node.op == "MatMul" || node.op == "Gemm")
      writeMatrixProduct(row, node);
  }

  void writeInput(std::size_t row, const graph::TaskInput& input) {
    set(row, input.kind == graph::TaskInput::Kind::Weight ? kOpInputWeight : kOpInputActivation,
        1.0f);
    set(row, kOutputElements, log2OnePlus(graph::elementCount(input.shape)));
    set(row, kOutputBytes, log2OnePlus(input.bytes()));
  }

private:
  const Shape& operandShape(const graph::TaskNode& node, std::size_t slot) const {
    const TaskValueRef& input = node.inputs[slot];
    return input.kind == TaskValueRef::Kind::Input
               ? task_.inputs[input.index].shape
               : task_.nodes[input.index].outputShapes[input.output];
  }

  void writeConv(std::size_t row, const graph::TaskNode& node) {
    const Shape& data = operandShape(node, 0);
    const Shape& weight = operandShape(node, 1);
    // Spatial sizes aligned from the last dimension: [w], [h, w] or [d, h, w]; a missing
    // dimension is 1 (a 2-D convolution is a 3-D one of depth 1).
    const std::vector<std::int64_t> kernel = graph::intsAttribute(
        node.attributes, "kernel_shape", Shape(weight.begin() + 2, weight.end()));
    const std::size_t rank = kernel.size();
    const std::int64_t kernelW = rank >= 1 ? kernel[rank - 1] : 1;
    const std::int64_t kernelH = rank >= 2 ? kernel[rank - 2] : 1;
    std::int64_t kernelD = 1;
    for (std::size_t i = 0; i + 2 < rank; ++i)
      kernelD *= kernel[i];
    set(row, kConvKernelH, log2OnePlus(kernelH));
    set(row, kConvKernelW, log2OnePlus(kernelW));
    set(row, kConvKernelD, log2OnePlus(kernelD));
    set(row, kConvStride, log2OnePlus(maxOf(graph::intsAttribute(node.attributes, "strides"))));
    set(row, kConvDilation, log2OnePlus(maxOf(graph::intsAttribute(node.attributes, "dilations"))));
    set(row, kConvGroups, log2OnePlus(graph::intAttribute(node.attributes, "group", 1)));
    set(row, kConvInputChannels, log2OnePlus(data[1]));
    set(row, kConvOutputChannels, log2OnePlus(node.outputShapes[0][1]));
  }

  void writeMatrixProduct(std::size_t row, const graph::TaskNode& node) {
    const graph::MatrixProduct product =
        node.op == "Gemm"
            ? graph::gemmProduct(operandShape(node, 0), operandShape(node, 1),
                                 graph::intAttribute(node.attributes, "transA", 0) != 0,
                                 graph::intAttribute(node.attributes, "transB", 0) != 0)
            : graph::matMulProduct(operandShape(node, 0), operandShape(node, 1));
    set(row, kMatMulM, log2OnePlus(product.m));
    set(row, kMatMulN, log2OnePlus(product.n));
    set(row, kMatMulK, log2OnePlus(product.k));
    set(row, kMatMulBatch, log2OnePlus(product.batch));
  }

  void set(std::size_t row, std::size_t column, float value) {
    graph_.features[row * kFeatureCount + column] = value;
  }

  const graph::Task& task_;
  TaskGraph& graph_;
};

} // namespace

TaskGraph taskGraph(const graph::Task& task) {
  validate(task);
  TaskGraph graph;
  graph.anchor = task.anchor;
  graph.nodeCount = task.nodes.size() + task.inputs.size();
  graph.featureCount = kFeatureCount;
  graph.features.assign(graph.nodeCount * kFeatureCount, 0.0f);

  FeatureWriter writer(task, graph);
  const std::size_t firstInputNode = task.nodes.size();
  std::set<std::pair<int, int>> edges;
  for (std::size_t position = 0; position < task.nodes.size(); ++position) {
    const graph::TaskNode& node = task.nodes[position];
    writer.writeOperator(position, node);
    const int consumer = static_cast<int>(position);
    for (const TaskValueRef& input : node.inputs) {
      if (input.kind == TaskValueRef::Kind::Node)
        edges.emplace(input.index, consumer); // producers come first: input.index < consumer
      else if (input.kind == TaskValueRef::Kind::Input)
        edges.emplace(consumer, static_cast<int>(firstInputNode) + input.index);
    }
  }
  for (std::size_t index = 0; index < task.inputs.size(); ++index)
    writer.writeInput(firstInputNode + index, task.inputs[index]);
  graph.edges.assign(edges.begin(), edges.end());
  return graph;
}

const std::vector<std::string>& taskGraphFeatureNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> columns;
    for (std::string_view op : kOpVocabulary)
      columns.push_back("op=" + std::string(op));
    columns.push_back("op=other");
    columns.push_back("op=input:activation");
    columns.push_back("op=input:weight");
    for (PatternKind pattern : kPatternKinds)
      columns.push_back(std::string("pattern=") + graph::patternKindName(pattern));
    for (std::string_view column : kNumericColumns)
      columns.emplace_back(column);
    return columns;
  }();
  return names;
}

} // namespace clustune::features
