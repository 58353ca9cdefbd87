// See OpCost.h. The rules mirror Counter.node_flops in scripts/count_flops.py line for line.
#include "graph/OpCost.h"

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

bool hasInput(const Node& node, std::size_t slot) {
  return node.inputs.size() > slot && node.inputs[slot] != kNoValue;
}

const Shape& inputShape(const Graph& graph, const Node& node, std::size_t slot) {
  assert(hasInput(node, slot));
  return graph.values[node.inputs[slot]].shape;
}

const Value& firstOutput(const Graph& graph, const Node& node) {
  assert(!node.outputs.empty());
  return graph.values[node.outputs[0]];
}

std::int64_t convFlops(const Graph& graph, const Node& node) {
  const Shape& output = firstOutput(graph, node).shape;
  const Shape& weight = inputShape(graph, node, 1); // [Cout, Cin/groups, k...]
  assert(output.size() >= 2 && weight.size() >= 2);
  std::int64_t flops = 2 * output[0] * output[1] * productOf(output.begin() + 2, output.end()) *
                       weight[1] * productOf(weight.begin() + 2, weight.end());
  if (hasInput(node, 2))
    flops += elementCount(output);
  return flops;
}

std::int64_t convTransposeFlops(const Graph& graph, const Node& node) {
  // Every input pixel scatters a kernel-sized window into every output channel of its group.
  const Shape& input = inputShape(graph, node, 0);
  const Shape& weight = inputShape(graph, node, 1); // [Cin, Cout/groups, k...]
  assert(input.size() >= 2 && weight.size() >= 2);
  std::int64_t flops = 2 * input[0] * input[1] * productOf(input.begin() + 2, input.end()) *
                       weight[1] * productOf(weight.begin() + 2, weight.end());
  if (hasInput(node, 2))
    flops += firstOutput(graph, node).elements();
  return flops;
}

std::int64_t gemmFlops(const Graph& graph, const Node& node) {
  const Shape& a = inputShape(graph, node, 0);
  const Shape& b = inputShape(graph, node, 1);
  assert(a.size() == 2 && b.size() == 2);
  const bool transposeA = node.intAttribute("transA", 0) != 0;
  const bool transposeB = node.intAttribute("transB", 0) != 0;
  const std::int64_t m = transposeA ? a[1] : a[0];
  const std::int64_t k = transposeA ? a[0] : a[1];
  const std::int64_t n = transposeB ? b[0] : b[1];
  std::int64_t flops = 2 * m * n * k;
  if (hasInput(node, 2))
    flops += m * n;
  return flops;
}

std::int64_t matMulFlops(const Graph& graph, const Node& node) {
  Shape a = inputShape(graph, node, 0);
  Shape b = inputShape(graph, node, 1);
  assert(!a.empty() && !b.empty());
  // numpy: a 1-D left operand is a row vector, a 1-D right operand a column vector.
  if (a.size() == 1)
    a.insert(a.begin(), 1);
  if (b.size() == 1)
    b.push_back(1);
  const std::int64_t m = a[a.size() - 2];
  const std::int64_t k = a[a.size() - 1];
  const std::int64_t n = b[b.size() - 1];
  Shape batchA(a.begin(), a.end() - 2);
  Shape batchB(b.begin(), b.end() - 2);
  const std::size_t rank = std::max(batchA.size(), batchB.size());
  batchA.insert(batchA.begin(), rank - batchA.size(), 1);
  batchB.insert(batchB.begin(), rank - batchB.size(), 1);
  std::int64_t batch = 1;
  for (std::size_t i = 0; i < rank; ++i)
    batch *= std::max(batchA[i], batchB[i]);
  return 2 * batch * m * n * k;
}

bool isElementWise(const Node& node) {
  // Cast only converts, Identity and Dropout (at inference) only copy.
  if (node.op == "Cast" || node.op == "Identity" || node.op == "Dropout")
    return false;
  const auto info = lookupOp(node.op);
  return info &&
         (info->pattern == PatternKind::ElemWise || info->pattern == PatternKind::Broadcast);
}

} // namespace

std::int64_t nodeFlops(const Graph& graph, const Node& node) {
  const std::string& op = node.op;
  if (op == "Conv")
    return convFlops(graph, node);
  if (op == "ConvTranspose")
    return convTransposeFlops(graph, node);
  if (op == "Gemm")
    return gemmFlops(graph, node);
  if (op == "MatMul")
    return matMulFlops(graph, node);
  if (op == "BatchNormalization")
    return 2 * firstOutput(graph, node).elements();
  if (op == "MaxPool" || op == "AveragePool") {
    const auto kernel = node.intsAttribute("kernel_shape");
    return firstOutput(graph, node).elements() * productOf(kernel.begin(), kernel.end());
  }
  if (op == "GlobalAveragePool" || op == "GlobalMaxPool" || op == "ReduceMean" ||
      op == "ReduceSum" || op == "ReduceMax" || op == "ReduceMin")
    return elementCount(inputShape(graph, node, 0));
  if (op == "Softmax")
    return 3 * elementCount(inputShape(graph, node, 0));
  if (op == "LayerNormalization")
    return 7 * elementCount(inputShape(graph, node, 0));
  if (isElementWise(node)) {
    const Value& output = firstOutput(graph, node);
    return isFloatingPoint(output.dtype) ? output.elements() : 0;
  }
  return 0;
}

} // namespace clustune::graph
