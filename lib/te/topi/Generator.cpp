// Lowerings of the operators that generate a tensor from a few constants: ConstantOfShape and
// Range. Small ones are folded away during simplification; these lowerings cover the large
// ones (a big attention mask, a long position range), which stay in the graph as tasks.
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

} // namespace

void registerGeneratorOperators(OperatorRegistry& registry) {
  registry["ConstantOfShape"] = lowerConstantOfShape;
  registry["Range"] = lowerRange;
}

} // namespace clustune::te::topi
