// Lowerings of the operators that generate a tensor from a few constants: ConstantOfShape,
// Range and EyeLike. Small ones are folded away during simplification; these lowerings cover the
// large ones (a big attention mask, a long position range), which stay in the graph as tasks.
#include "te/topi/Common.h"
#include "te/topi/Operator.h"

namespace clustune::te::topi {
namespace {

std::vector<Tensor> lowerConstantOfShape(const OperatorContext& context) {
  const DataType dtype = outputType(context);
  const Expr fill = typedConstant(floatAttribute(context, "value", 0.0), dtype);
  return {compute(context.stageName, outputShape(context),
                  [&](const std::vector<Expr>&) { return fill; })};
}

std::vector<Tensor> lowerRange(const OperatorContext& context) {
  const DataType dtype = outputType(context);
  const auto start = constantOperandValue(context, 0);
  const auto delta = constantOperandValue(context, 2);
  if (!start || !delta)
    context.fail("a Range whose start or delta is not a constant is not supported");
  return {compute(context.stageName, outputShape(context), [&](const std::vector<Expr>& index) {
    return typedConstant(*start, dtype) + cast(dtype, index[0]) * typedConstant(*delta, dtype);
  })};
}

// EyeLike: ones on the k-th diagonal of a 2-D output of the input's shape, zeros elsewhere, in
// the dtype the task records (the dtype attribute, or the input's).
std::vector<Tensor> lowerEyeLike(const OperatorContext& context) {
  requireOperands(context, 1, 1);
  requireOutputs(context, 1);
  const Shape& shape = outputShape(context);
  if (shape.size() != 2 || context.operand(0)->shape != shape)
    context.fail("needs a 2-D input, whose shape the output has");
  const DataType dtype = outputType(context);
  const std::int64_t k = intAttribute(context, "k", 0);
  return {compute(context.stageName, shape, [&](const std::vector<Expr>& index) {
    return select(index[1] - index[0] == intImm(k), typedConstant(1, dtype),
                  typedConstant(0, dtype));
  })};
}

} // namespace

void registerGeneratorOperators(OperatorRegistry& registry) {
  registry["ConstantOfShape"] = lowerConstantOfShape;
  registry["Range"] = lowerRange;
  registry["EyeLike"] = lowerEyeLike;
}

} // namespace clustune::te::topi
