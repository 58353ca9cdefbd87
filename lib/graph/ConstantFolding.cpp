// See ConstantFolding.h. The evaluator covers the operators that appear in shape computations;
// it works element by element on the flat data of graph::Value, taking output shapes from shape
// inference, which already ran. Integer data stays int64 throughout (Slice ends of INT64_MAX
// must survive exactly).
#include "graph/ConstantFolding.h"

#include "support/Error.h"

#include <cassert>
#include <cmath>
#include <functional>
#include <numeric>
#include <set>

namespace clustune::graph {
namespace {

std::vector<std::int64_t> stridesOf(const Shape& shape) {
  std::vector<std::int64_t> strides(shape.size(), 1);
  for (int axis = static_cast<int>(shape.size()) - 2; axis >= 0; --axis)
    strides[axis] = strides[axis + 1] * shape[axis + 1];
  return strides;
}

// Flat index into `inputShape` for the numpy-broadcast element at flat `outputIndex`.
std::int64_t broadcastSource(const Shape& outputShape, const Shape& inputShape,
                             std::int64_t outputIndex) {
  const auto inputStrides = stridesOf(inputShape);
  const std::size_t offset = outputShape.size() - inputShape.size();
  std::int64_t source = 0;
  for (int axis = static_cast<int>(outputShape.size()) - 1; axis >= 0; --axis) {
    const std::int64_t coordinate = outputIndex % outputShape[axis];
    outputIndex /= outputShape[axis];
    if (axis < static_cast<int>(offset))
      continue;
    const std::size_t inputAxis = axis - offset;
    if (inputShape[inputAxis] != 1)
      source += coordinate * inputStrides[inputAxis];
  }
  return source;
}

bool isInteger(const Value& value) {
  return !isFloatingPoint(value.dtype);
}

double asFloat(const Value& value, std::int64_t index) {
  return isInteger(value) ? static_cast<double>(value.intData[index]) : value.floatData[index];
}

std::int64_t asInt(const Value& value, std::int64_t index) {
  return isInteger(value) ? value.intData[index]
                          : static_cast<std::int64_t>(value.floatData[index]);
}

// Output value under construction: same dtype/shape as inferred, data filled by the folder.
struct Result {
  Value& value;
  bool outOfRange = false; // a float result beyond int64 was stored into an integer value
  void push(double x) {
    if (isInteger(value) && value.dtype != DataType::Bool && !(x >= -0x1p63 && x < 0x1p63)) {
      outOfRange = true;
      value.intData.push_back(0);
    } else if (isInteger(value))
      value.intData.push_back(value.dtype == DataType::Bool ? (x != 0)
                                                            : static_cast<std::int64_t>(x));
    else
      value.floatData.push_back(x);
  }
  void pushInt(std::int64_t x) {
    if (isInteger(value))
      value.intData.push_back(value.dtype == DataType::Bool ? (x != 0) : x);
    else
      value.floatData.push_back(static_cast<double>(x));
  }
  // Copies element `index` of `source` (same kind of dtype) exactly.
  void copy(const Value& source, std::int64_t index) {
    if (isInteger(source))
      pushInt(source.intData[index]);
    else
      push(source.floatData[index]);
  }
};

std::int64_t normalizeAxis(std::int64_t axis, std::size_t rank) {
  return axis < 0 ? axis + static_cast<std::int64_t>(rank) : axis;
}

bool evaluateElementwise(const std::string& op, const std::vector<const Value*>& in, Result& out) {
  // Max and Min take any number of inputs; only one or two (three for Where) are evaluated.
  if (in.size() > (op == "Where" ? 3u : 2u))
    return false;
  const Shape& shape = out.value.shape;
  const std::int64_t count = elementCount(shape);
  const bool integer =
      std::all_of(in.begin(), in.end(), [](const Value* v) { return isInteger(*v); });
  for (std::int64_t i = 0; i < count; ++i) {
    auto src = [&](int k) { return broadcastSource(shape, in[k]->shape, i); };
    if (op == "Where") {
      const bool condition = asInt(*in[0], src(0)) != 0;
      out.copy(*in[condition ? 1 : 2], src(condition ? 1 : 2));
      continue;
    }
    if (in.size() == 1) {
      const double x = asFloat(*in[0], src(0));
      if (integer && (op == "Neg" || op == "Abs") && asInt(*in[0], src(0)) == INT64_MIN)
        return false; // its negation does not fit
      if (op == "Neg")
        integer ? out.pushInt(-asInt(*in[0], src(0))) : out.push(-x);
      else if (op == "Sqrt")
        out.push(std::sqrt(x));
      else if (op == "Not")
        out.pushInt(x == 0);
      else if (op == "Abs")
        integer ? out.pushInt(std::llabs(asInt(*in[0], src(0)))) : out.push(std::fabs(x));
      else
        return false;
      continue;
    }
    if (integer && op != "Pow") {
      const std::int64_t a = asInt(*in[0], src(0)), b = asInt(*in[1], src(1));
      std::int64_t result = 0;
      // An overflow, or a division by zero, is left to run time rather than folded as
      // undefined behaviour.
      if (op == "Add" || op == "Sub" || op == "Mul") {
        const bool overflow = op == "Add"   ? __builtin_add_overflow(a, b, &result)
                              : op == "Sub" ? __builtin_sub_overflow(a, b, &result)
                                            : __builtin_mul_overflow(a, b, &result);
        if (overflow)
          return false;
        out.pushInt(result);
      } else if (op == "Div") {
        if (b == 0 || (a == INT64_MIN && b == -1))
          return false;
        out.pushInt(a / b);
      } else if (op == "Equal")
        out.pushInt(a == b);
      else if (op == "Less")
        out.pushInt(a < b);
      else if (op == "Greater")
        out.pushInt(a > b);
      else if (op == "Min")
        out.pushInt(std::min(a, b));
      else if (op == "Max")
        out.pushInt(std::max(a, b));
      else if (op == "And")
        out.pushInt(a && b);
      else if (op == "Or")
        out.pushInt(a || b);
      else
        return false;
      continue;
    }
    const double a = asFloat(*in[0], src(0)), b = asFloat(*in[1], src(1));
    if (op == "Add")
      out.push(a + b);
    else if (op == "Sub")
      out.push(a - b);
    else if (op == "Mul")
      out.push(a * b);
    else if (op == "Div")
      out.push(a / b);
    else if (op == "Pow")
      out.push(std::pow(a, b));
    else if (op == "Equal")
      out.pushInt(a == b);
    else if (op == "Less")
      out.pushInt(a < b);
    else if (op == "Greater")
      out.pushInt(a > b);
    else if (op == "Min")
      out.push(std::min(a, b));
    else if (op == "Max")
      out.push(std::max(a, b));
    else
      return false;
  }
  return true;
}

bool evaluateGather(const Node& node, const Value& data, const Value& indices, Result& out) {
  const auto axis = normalizeAxis(node.intAttribute("axis", 0), data.shape.size());
  const std::int64_t outer = elementCount(Shape(data.shape.begin(), data.shape.begin() + axis));
  const std::int64_t inner = elementCount(Shape(data.shape.begin() + axis + 1, data.shape.end()));
  const std::int64_t extent = data.shape[axis];
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t index : indices.intData) {
      if (index < 0)
        index += extent;
      if (index < 0 || index >= extent)
        throw Error("Gather index " + std::to_string(index) + " out of range [0, " +
                    std::to_string(extent) + ")");
      for (std::int64_t i = 0; i < inner; ++i)
        out.copy(data, (o * extent + index) * inner + i);
    }
  return true;
}

bool evaluateConcat(const Node& node, const std::vector<const Value*>& in, Result& out) {
  const auto axis = normalizeAxis(node.intAttribute("axis", 0), out.value.shape.size());
  const Shape& shape = out.value.shape;
  const std::int64_t outer = elementCount(Shape(shape.begin(), shape.begin() + axis));
  for (std::int64_t o = 0; o < outer; ++o)
    for (const Value* part : in) {
      const std::int64_t chunk = elementCount(Shape(part->shape.begin() + axis, part->shape.end()));
      for (std::int64_t i = 0; i < chunk; ++i)
        out.copy(*part, o * chunk + i);
    }
  return true;
}

bool evaluateSlice(const Node& node, const std::vector<const Value*>& in, Result& out) {
  if (in.size() < 3 || !in[1] || !in[2])
    return false; // before opset 10, starts and ends were attributes
  const Value& data = *in[0];
  const std::size_t rank = data.shape.size();
  std::vector<std::int64_t> start(rank, 0), step(rank, 1);
  const auto& starts = in[1]->intData;
  std::vector<std::int64_t> axes(starts.size());
  std::iota(axes.begin(), axes.end(), 0);
  if (in.size() > 3 && in[3])
    axes = in[3]->intData;
  for (std::size_t k = 0; k < axes.size(); ++k) {
    const auto axis = normalizeAxis(axes[k], rank);
    const std::int64_t extent = data.shape[axis];
    step[axis] = in.size() > 4 && in[4] ? in[4]->intData[k] : 1;
    std::int64_t first = starts[k];
    if (first < 0)
      first += extent;
    first = step[axis] > 0 ? std::clamp<std::int64_t>(first, 0, extent)
                           : std::clamp<std::int64_t>(first, 0, extent - 1);
    start[axis] = first;
  }
  (void)node;
  const Shape& shape = out.value.shape;
  const auto dataStrides = stridesOf(data.shape);
  const std::int64_t count = elementCount(shape);
  for (std::int64_t i = 0; i < count; ++i) {
    std::int64_t remaining = i, source = 0;
    for (int axis = static_cast<int>(rank) - 1; axis >= 0; --axis) {
      const std::int64_t coordinate = remaining % shape[axis];
      remaining /= shape[axis];
      source += (start[axis] + coordinate * step[axis]) * dataStrides[axis];
    }
    out.copy(data, source);
  }
  return true;
}

bool evaluateTranspose(const Node& node, const Value& data, Result& out) {
  const std::size_t rank = data.shape.size();
  std::vector<std::int64_t> perm(rank);
  std::iota(perm.rbegin(), perm.rend(), 0);
  perm = node.intsAttribute("perm", perm);
  const auto dataStrides = stridesOf(data.shape);
  const Shape& shape = out.value.shape;
  const std::int64_t count = elementCount(shape);
  for (std::int64_t i = 0; i < count; ++i) {
    std::int64_t remaining = i, source = 0;
    for (int axis = static_cast<int>(rank) - 1; axis >= 0; --axis) {
      source += (remaining % shape[axis]) * dataStrides[perm[axis]];
      remaining /= shape[axis];
    }
    out.copy(data, source);
  }
  return true;
}

bool evaluateInto(const Node& node, const std::vector<const Value*>& in, Result& out) {
  const std::string& op = node.op;
  if (op == "Shape") {
    const Shape& shape = in[0]->shape;
    const auto rank = static_cast<std::int64_t>(shape.size());
    auto clampAxis = [&](std::int64_t axis) {
      return std::clamp<std::int64_t>(axis < 0 ? axis + rank : axis, 0, rank);
    };
    const std::int64_t first = clampAxis(node.intAttribute("start", 0));
    const std::int64_t last = clampAxis(node.intAttribute("end", rank));
    for (std::int64_t axis = first; axis < last; ++axis)
      out.pushInt(shape[axis]);
    return true;
  }
  if (op == "Size") {
    out.pushInt(in[0]->elements());
    return true;
  }
  if (op == "ConstantOfShape") {
    const double fill = node.floatAttribute("value", 0.0);
    for (std::int64_t i = 0; i < out.value.elements(); ++i)
      out.push(fill);
    return true;
  }
  if (op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze" ||
      op == "Identity") {
    for (std::int64_t i = 0; i < in[0]->elements(); ++i)
      out.copy(*in[0], i);
    return true;
  }
  if (op == "Expand") {
    for (std::int64_t i = 0; i < out.value.elements(); ++i)
      out.copy(*in[0], broadcastSource(out.value.shape, in[0]->shape, i));
    return true;
  }
  if (op == "Cast") {
    for (std::int64_t i = 0; i < in[0]->elements(); ++i) {
      if (isInteger(out.value) && !isInteger(*in[0]))
        out.push(in[0]->floatData[i]); // truncated toward zero; nonzero is true for bool
      else
        out.copy(*in[0], i);
    }
    return true;
  }
  if (op == "Range") {
    const double start = asFloat(*in[0], 0), delta = asFloat(*in[2], 0);
    for (std::int64_t i = 0; i < out.value.elements(); ++i)
      out.push(start + static_cast<double>(i) * delta);
    return true;
  }
  if (op == "Gather")
    return evaluateGather(node, *in[0], *in[1], out);
  if (op == "Concat")
    return evaluateConcat(node, in, out);
  if (op == "Slice")
    return evaluateSlice(node, in, out);
  if (op == "Transpose")
    return evaluateTranspose(node, *in[0], out);
  static const std::set<std::string> elementwise = {
      "Add", "Sub", "Mul", "Div", "Pow", "Equal", "Less", "Greater", "Min",
      "Max", "And", "Or",  "Not", "Neg", "Sqrt",  "Abs",  "Where"};
  if (elementwise.count(op))
    return evaluateElementwise(op, in, out);
  return false;
}

} // namespace

bool evaluateNode(const Node& node, const std::vector<const Value*>& inputs, Value& output) {
  Result out{output};
  return evaluateInto(node, inputs, out) && !out.outOfRange;
}

namespace {

bool inputsAvailable(const Graph& graph, const Node& node) {
  if (node.op == "Shape" || node.op == "Size")
    return true; // shapes are static: the data of the input is not needed
  for (ValueId id : node.inputs)
    if (id != kNoValue && !(graph.values[id].kind == ValueKind::Constant &&
                            graph.values[id].hasData && !graph.values[id].generated))
      return false;
  return !node.inputs.empty() || node.op == "ConstantOfShape";
}

} // namespace

int foldConstants(Graph& graph, std::int64_t maxElements) {
  int folded = 0;
  for (NodeId id = 0; id < static_cast<NodeId>(graph.nodes.size()); ++id) {
    Node& node = graph.nodes[id];
    if (node.erased || node.outputs.size() != 1 || !inputsAvailable(graph, node))
      continue;
    Value result = graph.values[node.outputs[0]];
    if (result.elements() > maxElements)
      continue;
    result.floatData.clear();
    result.intData.clear();
    std::vector<const Value*> inputs;
    for (ValueId input : node.inputs)
      inputs.push_back(input == kNoValue ? nullptr : &graph.values[input]);
    try {
      if (!evaluateNode(node, inputs, result))
        continue;
    } catch (const Error& error) {
      throw Error(error.message(), {.node = graph.nodeLabel(id)});
    }
    Value& folded_value = result;
    assert(static_cast<std::int64_t>(isInteger(folded_value) ? folded_value.intData.size()
                                                             : folded_value.floatData.size()) ==
           folded_value.elements());
    folded_value.kind = ValueKind::Constant;
    folded_value.producer = -1;
    folded_value.hasData = true;
    graph.values[node.outputs[0]] = std::move(folded_value);
    graph.eraseNode(id);
    ++folded;
  }
  return folded;
}

} // namespace clustune::graph
