// See OpCost.h. The rules mirror Counter.node_flops in scripts/count_flops.py line for line; they
// are written once, over OperatorShapes, so that graph nodes and task nodes are costed alike.
#include "graph/OpCost.h"

#include "graph/Einsum.h"
#include "support/Error.h"

#include <algorithm>
#include <cassert>

namespace clustune::graph {
namespace {

std::int64_t productOf(Shape::const_iterator begin, Shape::const_iterator end) {
  std::int64_t product = 1;
  for (auto it = begin; it != end; ++it)
    product *= *it;
  return product;
}

bool hasInput(const OperatorShapes& node, std::size_t slot) {
  return node.inputs.size() > slot && node.inputs[slot] != nullptr;
}

const Shape& inputShape(const OperatorShapes& node, std::size_t slot) {
  assert(hasInput(node, slot));
  return *node.inputs[slot];
}

const Shape& outputShape(const OperatorShapes& node) {
  assert(node.output != nullptr);
  return *node.output;
}

std::int64_t convFlops(const OperatorShapes& node) {
  const Shape& output = outputShape(node);
  const Shape& weight = inputShape(node, 1); // [Cout, Cin/groups, k...]
  assert(output.size() >= 2 && weight.size() >= 2);
  std::int64_t flops = 2 * output[0] * output[1] * productOf(output.begin() + 2, output.end()) *
                       weight[1] * productOf(weight.begin() + 2, weight.end());
  if (hasInput(node, 2))
    flops += elementCount(output);
  return flops;
}

// ConvNCHWc and DepthwiseConvNCHWc: the weight is [K/y, C/x, k..., x, y] or
// [C/x, 1, k..., 1, x], so every output element sums all but the last weight axis's products.
std::int64_t convNCHWcFlops(const OperatorShapes& node) {
  const Shape& weight = inputShape(node, 1);
  assert(weight.size() >= 5);
  std::int64_t flops =
      2 * elementCount(outputShape(node)) * productOf(weight.begin() + 1, weight.end() - 1);
  if (hasInput(node, 2))
    flops += elementCount(outputShape(node));
  return flops;
}

std::int64_t convTransposeFlops(const OperatorShapes& node) {
  // Every input pixel scatters a kernel-sized window into every output channel of its group.
  const Shape& input = inputShape(node, 0);
  const Shape& weight = inputShape(node, 1); // [Cin, Cout/groups, k...]
  assert(input.size() >= 2 && weight.size() >= 2);
  std::int64_t flops = 2 * input[0] * input[1] * productOf(input.begin() + 2, input.end()) *
                       weight[1] * productOf(weight.begin() + 2, weight.end());
  if (hasInput(node, 2))
    flops += elementCount(outputShape(node));
  return flops;
}

std::int64_t gemmFlops(const OperatorShapes& node) {
  const MatrixProduct product = gemmProduct(inputShape(node, 0), inputShape(node, 1),
                                            intAttribute(*node.attributes, "transA", 0) != 0,
                                            intAttribute(*node.attributes, "transB", 0) != 0);
  std::int64_t flops = 2 * product.m * product.n * product.k;
  if (hasInput(node, 2))
    flops += product.m * product.n;
  return flops;
}

std::int64_t matMulFlops(const OperatorShapes& node) {
  const MatrixProduct product = matMulProduct(inputShape(node, 0), inputShape(node, 1));
  return 2 * product.batch * product.m * product.n * product.k;
}

bool isElementWise(const std::string& op) {
  // Cast only converts, Identity and Dropout (at inference) only copy.
  if (op == "Cast" || op == "CastLike" || op == "Identity" || op == "Dropout")
    return false;
  const auto info = lookupOp(op);
  return info &&
         (info->pattern == PatternKind::ElemWise || info->pattern == PatternKind::Broadcast);
}

} // namespace

MatrixProduct matMulProduct(Shape a, Shape b) {
  assert(!a.empty() && !b.empty());
  if (a.size() == 1)
    a.insert(a.begin(), 1);
  if (b.size() == 1)
    b.push_back(1);
  MatrixProduct product{.m = a[a.size() - 2], .n = b[b.size() - 1], .k = a[a.size() - 1]};
  Shape batchA(a.begin(), a.end() - 2);
  Shape batchB(b.begin(), b.end() - 2);
  const std::size_t rank = std::max(batchA.size(), batchB.size());
  batchA.insert(batchA.begin(), rank - batchA.size(), 1);
  batchB.insert(batchB.begin(), rank - batchB.size(), 1);
  for (std::size_t i = 0; i < rank; ++i)
    product.batch *= std::max(batchA[i], batchB[i]);
  return product;
}

MatrixProduct gemmProduct(const Shape& a, const Shape& b, bool transposeA, bool transposeB) {
  assert(a.size() == 2 && b.size() == 2);
  return MatrixProduct{.batch = 1,
                       .m = transposeA ? a[1] : a[0],
                       .n = transposeB ? b[0] : b[1],
                       .k = transposeA ? a[0] : a[1]};
}

std::int64_t operatorFlops(const OperatorShapes& node) {
  assert(node.op != nullptr && node.attributes != nullptr);
  const std::string& op = *node.op;
  if (op == "Conv")
    return convFlops(node);
  if (op == "ConvTranspose")
    return convTransposeFlops(node);
  if (op == "ConvNCHWc" || op == "DepthwiseConvNCHWc")
    return convNCHWcFlops(node);
  if (op == "Gemm")
    return gemmFlops(node);
  if (op == "MatMul")
    return matMulFlops(node);
  if (op == "BatchNormalization")
    return 2 * elementCount(outputShape(node));
  if (op == "MaxPool" || op == "AveragePool") {
    const auto kernel = intsAttribute(*node.attributes, "kernel_shape");
    return elementCount(outputShape(node)) * productOf(kernel.begin(), kernel.end());
  }
  if (op == "GlobalAveragePool" || op == "GlobalMaxPool" || op == "ReduceMean" ||
      op == "ReduceSum" || op == "ReduceMax" || op == "ReduceMin" || op == "ReduceLogSum" ||
      op == "ReduceProd" || op == "ArgMax" || op == "ArgMin" || op == "CumSum" || op == "TopK")
    return elementCount(inputShape(node, 0));
  if (op == "Hardmax")
    return 2 * elementCount(inputShape(node, 0));
  // LRN: a square and an add per window element, then a multiply-add, a pow and a divide.
  if (op == "LRN")
    return (2 * intAttribute(*node.attributes, "size", 1) + 4) * elementCount(inputShape(node, 0));
  if (op == "MeanVarianceNormalization")
    return 6 * elementCount(inputShape(node, 0));
  if (op == "Einsum") {
    const AttributeValue* equation = findAttribute(*node.attributes, "equation");
    const auto* text = equation ? std::get_if<std::string>(equation) : nullptr;
    std::vector<Shape> shapes;
    for (const Shape* shape : node.inputs)
      shapes.push_back(shape ? *shape : Shape{});
    try {
      return text ? einsumFlops(parseEinsum(*text, shapes)) : 0;
    } catch (const Error&) {
      return 0; // the lowering refuses the equation, naming the node
    }
  }
  // An element map (|x| or x * x) and the sum.
  if (op == "ReduceL1" || op == "ReduceL2" || op == "ReduceSumSquare")
    return 2 * elementCount(inputShape(node, 0));
  if (op == "Softmax" || op == "LogSoftmax" || op == "ReduceLogSumExp")
    return 3 * elementCount(inputShape(node, 0));
  if (op == "LayerNormalization" || op == "InstanceNormalization")
    return 7 * elementCount(inputShape(node, 0));
  if (isElementWise(op))
    return isFloatingPoint(node.outputType) ? elementCount(outputShape(node)) : 0;
  return 0;
}

std::int64_t nodeFlops(const Graph& graph, const Node& node) {
  assert(!node.outputs.empty());
  OperatorShapes shapes{.op = &node.op, .attributes = &node.attributes};
  for (ValueId input : node.inputs)
    shapes.inputs.push_back(input == kNoValue ? nullptr : &graph.values[input].shape);
  const Value& output = graph.values[node.outputs[0]];
  shapes.output = &output.shape;
  shapes.outputType = output.dtype;
  return operatorFlops(shapes);
}

std::int64_t nodeFlops(const Task& task, const TaskNode& node) {
  assert(!node.outputShapes.empty() && node.outputShapes.size() == node.outputTypes.size());
  OperatorShapes shapes{.op = &node.op, .attributes = &node.attributes};
  for (const TaskValueRef& input : node.inputs) {
    switch (input.kind) {
    case TaskValueRef::Kind::Input:
      shapes.inputs.push_back(&task.inputs.at(input.index).shape);
      break;
    case TaskValueRef::Kind::Node:
      shapes.inputs.push_back(&task.nodes.at(input.index).outputShapes.at(input.output));
      break;
    case TaskValueRef::Kind::Omitted:
      shapes.inputs.push_back(nullptr);
      break;
    }
  }
  shapes.output = &node.outputShapes[0];
  shapes.outputType = node.outputTypes[0];
  return operatorFlops(shapes);
}

} // namespace clustune::graph
