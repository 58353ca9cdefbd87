// See Common.h.
#include "te/topi/Common.h"

#include "graph/BlockedLayout.h"

#include <cassert>
#include <variant>

namespace clustune::te::topi {
namespace {

const graph::AttributeValue* findAttribute(const OperatorContext& context,
                                           const std::string& name) {
  auto found = context.node.attributes.find(name);
  return found == context.node.attributes.end() ? nullptr : &found->second;
}

// The attribute's value as T, the fallback when absent, or a failure naming what was wrong.
template <class T>
T typedAttribute(const OperatorContext& context, const std::string& name,
                 const std::optional<T>& fallback, const char* expected) {
  const graph::AttributeValue* value = findAttribute(context, name);
  if (!value) {
    if (!fallback)
      context.fail("missing attribute '" + name + "'");
    return *fallback;
  }
  if (const T* typed = std::get_if<T>(value))
    return *typed;
  context.fail("attribute '" + name + "' must be " + expected);
}

} // namespace

bool hasAttribute(const OperatorContext& context, const std::string& name) {
  return findAttribute(context, name) != nullptr;
}

std::int64_t intAttribute(const OperatorContext& context, const std::string& name,
                          std::optional<std::int64_t> fallback) {
  return typedAttribute(context, name, fallback, "an integer");
}

double floatAttribute(const OperatorContext& context, const std::string& name,
                      std::optional<double> fallback) {
  if (const graph::AttributeValue* value = findAttribute(context, name))
    if (const auto* integer = std::get_if<std::int64_t>(value))
      return static_cast<double>(*integer);
  return typedAttribute(context, name, fallback, "a number");
}

std::vector<std::int64_t> intsAttribute(const OperatorContext& context, const std::string& name,
                                        std::optional<std::vector<std::int64_t>> fallback) {
  return typedAttribute(context, name, fallback, "a list of integers");
}

std::string stringAttribute(const OperatorContext& context, const std::string& name,
                            std::optional<std::string> fallback) {
  return typedAttribute(context, name, fallback, "a string");
}

void requireOperands(const OperatorContext& context, std::size_t required, std::size_t maximum) {
  const std::size_t given = context.operands.size();
  if (given < required || given > maximum)
    context.fail("expects " +
                 (required == maximum
                      ? std::to_string(required)
                      : std::to_string(required) + " to " + std::to_string(maximum)) +
                 " operands, the task gives " + std::to_string(given));
  for (std::size_t index = 0; index < required; ++index)
    if (!context.hasOperand(index))
      context.fail("operand " + std::to_string(index) + " is required");
}

void requireOutputs(const OperatorContext& context, std::size_t maximumOutputs) {
  const std::size_t recorded = context.node.outputShapes.size();
  if (recorded < 1 || recorded > maximumOutputs)
    context.fail("supports up to " + std::to_string(maximumOutputs) +
                 " outputs, the task records " + std::to_string(recorded));
}

const Shape& outputShape(const OperatorContext& context, std::size_t output) {
  return context.node.outputShapes.at(output);
}

DataType outputType(const OperatorContext& context, std::size_t output) {
  return context.node.outputTypes.at(output);
}

Expr typedConstant(double value, DataType dtype) {
  if (graph::isFloatingPoint(dtype))
    return floatImm(value, dtype);
  return intImm(static_cast<std::int64_t>(value), dtype);
}

std::optional<double> constantOperandValue(const OperatorContext& context, std::size_t index) {
  if (index >= context.operandInputs.size() || !context.operandInputs[index])
    return std::nullopt;
  const graph::TaskInput& input = *context.operandInputs[index];
  if (!input.hasData || input.kind != graph::TaskInput::Kind::Weight ||
      graph::elementCount(input.shape) != 1)
    return std::nullopt;
  if (graph::isFloatingPoint(input.dtype))
    return input.floatData.at(0);
  return static_cast<double>(input.intData.at(0));
}

void requireBroadcastable(const OperatorContext& context, const Shape& operandShape,
                          const Shape& outputShape) {
  bool compatible = operandShape.size() <= outputShape.size();
  for (std::size_t k = 0; compatible && k < operandShape.size(); ++k) {
    const std::int64_t extent = operandShape[operandShape.size() - 1 - k];
    compatible = extent == 1 || extent == outputShape[outputShape.size() - 1 - k];
  }
  if (!compatible)
    context.fail("cannot broadcast " + graph::shapeToString(operandShape) + " to " +
                 graph::shapeToString(outputShape));
}

std::vector<Expr> broadcastIndices(const Shape& operandShape,
                                   const std::vector<Expr>& outputIndices) {
  const std::size_t skipped = outputIndices.size() - operandShape.size();
  std::vector<Expr> indices;
  for (std::size_t axis = 0; axis < operandShape.size(); ++axis)
    indices.push_back(operandShape[axis] == 1 ? intImm(0) : outputIndices[skipped + axis]);
  return indices;
}

Expr broadcastOperand(const OperatorContext& context, std::size_t index,
                      const std::vector<Expr>& outputIndices) {
  const Tensor& operand = context.operand(index);
  requireBroadcastable(context, operand->shape, outputShape(context));
  if (std::optional<double> value = constantOperandValue(context, index))
    return typedConstant(*value, operand->dtype);
  return load(operand, broadcastIndices(operand->shape, outputIndices));
}

Expr flattenIndex(const std::vector<Expr>& indices, const Shape& shape) {
  Expr flat = intImm(0);
  for (std::size_t axis = 0; axis < shape.size(); ++axis)
    flat = flat * intImm(shape[axis]) + indices[axis];
  return flat;
}

std::vector<Expr> unflattenIndex(const Expr& flatIndex, const Shape& shape) {
  std::vector<Expr> indices(shape.size());
  std::int64_t stride = 1;
  for (std::size_t axis = shape.size(); axis-- > 0;) {
    if (shape[axis] == 1) {
      indices[axis] = intImm(0);
      continue;
    }
    // The outermost non-unit axis needs no modulo: the flat index is within the tensor.
    Expr quotient = floorDiv(flatIndex, intImm(stride));
    const bool outermost = graph::elementCount(Shape(shape.begin(), shape.begin() + axis)) == 1;
    indices[axis] = outermost ? quotient : floorMod(quotient, intImm(shape[axis]));
    stride *= shape[axis];
  }
  return indices;
}

Tensor copyStage(const std::string& name, const Tensor& source) {
  return compute(name, source->shape,
                 [&](const std::vector<Expr>& indices) { return load(source, indices); });
}

std::int64_t layoutAttributeBlock(const OperatorContext& context) {
  if (!hasAttribute(context, "layout"))
    return 0;
  const auto block = graph::parseChannelLayout(stringAttribute(context, "layout"));
  if (!block || *block == 0)
    context.fail("layout must be NCHW<x>c");
  return *block;
}

std::vector<std::int64_t> intsOfSize(const OperatorContext& context, const std::string& name,
                                     std::size_t size) {
  std::vector<std::int64_t> values = intsAttribute(context, name);
  if (values.size() != size)
    context.fail("attribute '" + name + "' must have " + std::to_string(size) + " entries");
  return values;
}

Expr ReductionAxes::add(const std::string& name, std::int64_t extent) {
  if (extent == 1)
    return intImm(0);
  axes_.push_back({makeVar(name), extent});
  return varExpr(axes_.back().var);
}

Expr ReductionAxes::combine(Reducer reducer, Expr source) const {
  return axes_.empty() ? source : reduce(reducer, std::move(source), axes_);
}

// See Common.h. With spread 1 this is padding (offset = the begin pad, negative offsets crop; 0
// for convolutions, the lowest value for max pooling); with spread s it is the zero-dilated
// input of a transposed convolution.
Tensor spreadAndPad(const std::string& name, const Tensor& data, const Expr& fill,
                    const std::vector<std::int64_t>& spread,
                    const std::vector<std::int64_t>& offset,
                    const std::vector<std::int64_t>& extents, std::size_t trailingAxes) {
  const std::size_t spatial = extents.size();
  assert(data->shape.size() == 2 + spatial + trailingAxes);
  bool identity = true;
  for (std::size_t axis = 0; axis < spatial; ++axis)
    identity = identity && spread[axis] == 1 && offset[axis] == 0 &&
               extents[axis] == data->shape[2 + axis];
  if (identity)
    return data;
  Shape shape = {data->shape[0], data->shape[1]};
  shape.insert(shape.end(), extents.begin(), extents.end());
  shape.insert(shape.end(), data->shape.end() - static_cast<std::ptrdiff_t>(trailingAxes),
               data->shape.end());
  return compute(name, shape, [&](const std::vector<Expr>& indices) {
    std::vector<Expr> source = {indices[0], indices[1]};
    Expr inBounds;
    auto require = [&](Expr condition) { inBounds = inBounds ? inBounds && condition : condition; };
    for (std::size_t axis = 0; axis < spatial; ++axis) {
      const Expr& position = indices[2 + axis];
      const std::int64_t lastSource = offset[axis] + (data->shape[2 + axis] - 1) * spread[axis];
      const Expr shifted = position - intImm(offset[axis]);
      // Only the tests that can fail are emitted, so a stage that just crops has no Select; they
      // compare the position itself with constants, the simplest form for bound inference.
      if (offset[axis] > 0)
        require(position >= intImm(offset[axis]));
      if (extents[axis] - 1 > lastSource)
        require(position <= intImm(lastSource));
      if (spread[axis] > 1)
        require(floorMod(shifted, intImm(spread[axis])) == intImm(0));
      source.push_back(floorDiv(shifted, intImm(spread[axis])));
    }
    source.insert(source.end(), indices.begin() + static_cast<std::ptrdiff_t>(2 + spatial),
                  indices.end());
    Expr value = load(data, source);
    return inBounds ? select(inBounds, value, fill) : value;
  });
}

} // namespace clustune::te::topi
