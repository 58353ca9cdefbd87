// The attribute reading and the bias stage that Conv and ConvTranspose share (ConvGeometry.h).
#include "te/topi/ConvGeometry.h"

#include "support/Error.h"

namespace clustune::te::topi {

ConvGeometry readGeometry(const OperatorContext& context) {
  requireOperands(context, 2, 3);
  requireOutputs(context, 1);
  const Shape& data = context.operand(0)->shape;
  const Shape& weight = context.operand(1)->shape;
  if (data.size() < 3 || data.size() > 5 || weight.size() != data.size())
    context.fail("expects data and weight of rank 3 to 5 (N, C and 1 to 3 spatial dimensions), "
                 "got data [" +
                 graph::shapeToString(data) + "] and weight [" + graph::shapeToString(weight) +
                 "]");
  if (context.operand(0)->dtype != context.operand(1)->dtype)
    context.fail("data and weight have different dtypes");
  ConvGeometry geometry;
  const std::size_t spatial = data.size() - 2;
  geometry.spatialRank = spatial;
  geometry.kernel = intsOfSize(context, "kernel_shape", spatial);
  geometry.strides = intsOfSize(context, "strides", spatial);
  geometry.dilations = intsOfSize(context, "dilations", spatial);
  geometry.group = intAttribute(context, "group");
  if (geometry.group < 1)
    context.fail("group must be positive");
  for (std::size_t axis = 0; axis < spatial; ++axis) {
    if (geometry.kernel[axis] != weight[2 + axis])
      context.fail("kernel_shape does not match the weight shape");
    if (geometry.strides[axis] < 1 || geometry.dilations[axis] < 1)
      context.fail("strides and dilations must be positive");
  }
  return geometry;
}

void readExplicitPads(const OperatorContext& context, ConvGeometry& geometry) {
  const auto pads = intsOfSize(context, "pads", 2 * geometry.spatialRank);
  geometry.padsBegin.assign(pads.begin(), pads.begin() + geometry.spatialRank);
  geometry.padsEnd.assign(pads.begin() + geometry.spatialRank, pads.end());
  for (std::int64_t pad : pads)
    if (pad < 0)
      context.fail("pads must be non-negative");
}

std::vector<Expr> addKernelAxes(ReductionAxes& axes, const std::string& stageName,
                                const ConvGeometry& geometry) {
  std::vector<Expr> offsets;
  for (std::size_t axis = 0; axis < geometry.spatialRank; ++axis)
    offsets.push_back(axes.add(stageName + ".rk" + std::to_string(axis), geometry.kernel[axis]));
  return offsets;
}

void requireOutputShape(const OperatorContext& context, const Shape& computed) {
  if (outputShape(context) != computed)
    context.fail("the attributes give output shape [" + graph::shapeToString(computed) +
                 "], the task records [" + graph::shapeToString(outputShape(context)) + "]");
}

void requireChannelBias(const OperatorContext& context, const Tensor& bias, std::int64_t channels,
                        DataType dtype) {
  if (bias->shape != Shape{channels})
    context.fail("bias must have shape [" + std::to_string(channels) + "], got [" +
                 graph::shapeToString(bias->shape) + "]");
  if (bias->dtype != dtype)
    context.fail("bias has a different dtype from the data");
}

Tensor addChannelBias(const OperatorContext& context, const Tensor& convolution,
                      std::int64_t channels) {
  if (!context.hasOperand(2))
    return convolution;
  const Tensor& bias = context.operand(2);
  requireChannelBias(context, bias, channels, convolution->dtype);
  return compute(context.stageName + ".bias", convolution->shape,
                 [&](const std::vector<Expr>& indices) {
                   return load(convolution, indices) + load(bias, {indices[1]});
                 });
}

} // namespace clustune::te::topi
