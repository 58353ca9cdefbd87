// Shape rules (ShapeRules.h) of the element-wise operators, unary and broadcasting, and of the
// shape-arithmetic operators that make tensors from shapes: Shape, Size, ConstantOfShape, Range.
#include "graph/ShapeRules.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace clustune::graph {
namespace {

std::vector<Shape> inputShapes(const ShapeContext& context, std::size_t first = 0) {
  std::vector<Shape> shapes;
  for (std::size_t i = first; i < context.inputs.size(); ++i)
    shapes.push_back(context.shape(i));
  return shapes;
}

void checkSameTypes(const ShapeContext& context, std::size_t first = 0) {
  const DataType dtype = context.input(first).dtype;
  for (std::size_t i = first + 1; i < context.inputs.size(); ++i)
    if (context.input(i).dtype != dtype)
      context.fail(context.node.op + " mixes element types " + dataTypeName(dtype) + " and " +
                   dataTypeName(context.input(i).dtype));
}

void broadcasting(ShapeContext& context) {
  checkSameTypes(context);
  context.setOutput(0, context.input(0).dtype, broadcastShapes(context, inputShapes(context)));
}

// The exponent may have another element type than the base.
void power(ShapeContext& context) {
  context.setOutput(0, context.input(0).dtype, broadcastShapes(context, inputShapes(context)));
}

void comparison(ShapeContext& context) {
  checkSameTypes(context);
  context.setOutput(0, DataType::Bool, broadcastShapes(context, inputShapes(context)));
}

void where(ShapeContext& context) {
  if (context.input(0).dtype != DataType::Bool)
    context.fail("Where's condition must be bool, not " +
                 std::string(dataTypeName(context.input(0).dtype)));
  checkSameTypes(context, 1);
  context.setOutput(0, context.input(1).dtype, broadcastShapes(context, inputShapes(context)));
}

// PRelu's slope broadcasts to the input, never the other way.
void prelu(ShapeContext& context) {
  checkSameTypes(context);
  const Shape& input = context.shape(0);
  if (broadcastShapes(context, inputShapes(context)) != input)
    context.fail("PRelu's slope " + shapeText(context.shape(1)) +
                 " does not broadcast to its input " + shapeText(input));
  context.setOutput(0, context.input(0).dtype, input);
}

void cast(ShapeContext& context) {
  if (!context.node.attribute("to"))
    context.fail("Cast needs attribute 'to'");
  const std::int64_t code = context.node.intAttribute("to", 0);
  const auto dtype = dataTypeFromOnnxCode(code);
  if (!dtype)
    context.fail("Cast to ONNX element type " + std::to_string(code) +
                 " is not supported (clustune computes in float, int and bool types)");
  context.setOutput(0, *dtype, context.shape(0));
}

void predicate(ShapeContext& context) {
  context.setOutput(0, DataType::Bool, context.shape(0));
}

// CastLike reads only the type of its second operand.
void castLike(ShapeContext& context) {
  context.setOutput(0, context.input(1).dtype, context.shape(0));
}

void dropout(ShapeContext& context) {
  sameAsInput(context);
  context.setOutput(1, DataType::Bool, context.shape(0));
}

void shape(ShapeContext& context) {
  const auto rank = static_cast<std::int64_t>(context.rank(0));
  auto clampAxis = [&](std::int64_t axis) {
    return std::clamp<std::int64_t>(axis < 0 ? axis + rank : axis, 0, rank);
  };
  const std::int64_t first = clampAxis(context.node.intAttribute("start", 0));
  const std::int64_t last = clampAxis(context.node.intAttribute("end", rank));
  context.setOutput(0, DataType::Int64, {std::max<std::int64_t>(last - first, 0)});
}

void size(ShapeContext& context) {
  context.input(0);
  context.setOutput(0, DataType::Int64, {});
}

// The output's element type is that of the `value` attribute, which only the importer sees
// (attributes keep a tensor's value, not its type): it types the output before inference.
void constantOfShape(ShapeContext& context) {
  if (context.rank(0) != 1)
    context.fail("ConstantOfShape's shape must be 1-D, not " + shapeText(context.shape(0)));
  const auto extents = *context.constantInts(0, "shape");
  for (std::int64_t extent : extents)
    if (extent < 0)
      context.fail("ConstantOfShape's shape has a negative dimension " + std::to_string(extent));
  context.setOutput(0, context.outputs[0] ? context.outputs[0]->dtype : DataType::Float32,
                    Shape(extents.begin(), extents.end()));
}

void range(ShapeContext& context) {
  checkSameTypes(context);
  std::array<double, 3> operands{};
  for (std::size_t i = 0; i < 3; ++i) {
    if (!context.shape(i).empty() && elementCount(context.shape(i)) != 1)
      context.fail("Range's operands must be scalars; input " + std::to_string(i + 1) + " is " +
                   shapeText(context.shape(i)));
    const Value* known = context.data[i];
    if (!known)
      context.fail("Range's bounds are only known at run time, so its output shape is dynamic; "
                   "clustune needs static shapes");
    operands[i] = isFloatingPoint(known->dtype) ? known->floatData[0]
                                                : static_cast<double>(known->intData[0]);
  }
  const auto [start, limit, delta] = operands;
  if (delta == 0)
    context.fail("Range's delta is 0");
  const double count = std::ceil((limit - start) / delta);
  if (!(count < static_cast<double>(std::numeric_limits<std::int32_t>::max())))
    context.fail("Range would have more elements than clustune allows");
  context.setOutput(0, context.input(0).dtype, {std::max<std::int64_t>(0, std::llround(count))});
}

constexpr std::array kRules = {
    // Unary, the output as the input.
    ShapeRuleInfo{"Relu", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"Sigmoid", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"Tanh", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"Erf", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"HardSigmoid", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"HardSwish", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"LeakyRelu", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"Elu", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"Gelu", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"Selu", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"Celu", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"ThresholdedRelu", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"Softsign", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"Shrink", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"Softplus", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"Exp", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"Log", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"Sqrt", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"Neg", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"Abs", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"Reciprocal", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"Floor", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"Ceil", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"Round", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"Sign", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"Not", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"Identity", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"Sin", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"Cos", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"Tan", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"Asin", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"Acos", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"Atan", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"Sinh", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"Cosh", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"Asinh", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"Acosh", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"Atanh", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"IsNaN", 1, 1, 1, 1, predicate},
    ShapeRuleInfo{"IsInf", 1, 1, 1, 1, predicate},
    ShapeRuleInfo{"Clip", 1, 3, 1, 1, sameAsInput},
    ShapeRuleInfo{"Cast", 1, 1, 1, 1, cast},
    ShapeRuleInfo{"CastLike", 2, 2, 1, 1, castLike},
    ShapeRuleInfo{"Dropout", 1, 3, 1, 2, dropout},
    // Broadcasting.
    ShapeRuleInfo{"Add", 2, 2, 1, 1, broadcasting},
    ShapeRuleInfo{"Sub", 2, 2, 1, 1, broadcasting},
    ShapeRuleInfo{"Mul", 2, 2, 1, 1, broadcasting},
    ShapeRuleInfo{"Div", 2, 2, 1, 1, broadcasting},
    ShapeRuleInfo{"Pow", 2, 2, 1, 1, power},
    ShapeRuleInfo{"Mod", 2, 2, 1, 1, broadcasting},
    ShapeRuleInfo{"Max", 1, kVariadic, 1, 1, broadcasting},
    ShapeRuleInfo{"Min", 1, kVariadic, 1, 1, broadcasting},
    ShapeRuleInfo{"Sum", 1, kVariadic, 1, 1, broadcasting},
    ShapeRuleInfo{"Mean", 1, kVariadic, 1, 1, broadcasting},
    ShapeRuleInfo{"Equal", 2, 2, 1, 1, comparison},
    ShapeRuleInfo{"Less", 2, 2, 1, 1, comparison},
    ShapeRuleInfo{"Greater", 2, 2, 1, 1, comparison},
    ShapeRuleInfo{"LessOrEqual", 2, 2, 1, 1, comparison},
    ShapeRuleInfo{"GreaterOrEqual", 2, 2, 1, 1, comparison},
    ShapeRuleInfo{"And", 2, 2, 1, 1, comparison},
    ShapeRuleInfo{"Or", 2, 2, 1, 1, comparison},
    ShapeRuleInfo{"Xor", 2, 2, 1, 1, comparison},
    ShapeRuleInfo{"PRelu", 2, 2, 1, 1, prelu},
    ShapeRuleInfo{"Where", 3, 3, 1, 1, where},
    // Shape arithmetic.
    ShapeRuleInfo{"Shape", 1, 1, 1, 1, shape},
    ShapeRuleInfo{"Size", 1, 1, 1, 1, size},
    ShapeRuleInfo{"ConstantOfShape", 1, 1, 1, 1, constantOfShape},
    ShapeRuleInfo{"Range", 3, 3, 1, 1, range},
};

} // namespace

std::span<const ShapeRuleInfo> elementwiseShapeRules() {
  return kRules;
}

} // namespace clustune::graph
