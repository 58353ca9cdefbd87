// The lowering of ONNX Conv (1-D, 2-D and 3-D, NC + spatial layout) into compute stages, after
// TVM's topi conv*d_nchw: an optional padding stage, then one Sum reduction over (input channels
// of the group, kernel positions), then an optional element-wise bias stage: a Reduce must be the
// top of a stage body, so the bias cannot join the reduction stage. ConvTranspose is in
// ConvTranspose.cpp.
#include "te/topi/ConvGeometry.h"

namespace clustune::te::topi {
namespace {

std::vector<Tensor> lowerConv(const OperatorContext& context) {
  ConvGeometry geometry = readGeometry(context);
  readExplicitPads(context, geometry);
  const Tensor& data = context.operand(0);
  const Tensor& weight = context.operand(1);
  const std::int64_t inChannelsPerGroup = weight->shape[1];
  const std::int64_t outChannels = weight->shape[0];
  if (data->shape[1] != inChannelsPerGroup * geometry.group || outChannels % geometry.group != 0)
    context.fail("channels do not divide into " + std::to_string(geometry.group) +
                 " groups: data [" + graph::shapeToString(data->shape) + "], weight [" +
                 graph::shapeToString(weight->shape) + "]");
  const std::int64_t outChannelsPerGroup = outChannels / geometry.group;

  Shape resultShape = {data->shape[0], outChannels};
  std::vector<std::int64_t> paddedExtents;
  for (std::size_t axis = 0; axis < geometry.spatialRank; ++axis) {
    const std::int64_t padded =
        data->shape[2 + axis] + geometry.padsBegin[axis] + geometry.padsEnd[axis];
    if (padded < geometry.dilatedKernel(axis))
      context.fail("the dilated kernel is larger than the padded input");
    paddedExtents.push_back(padded);
    resultShape.push_back((padded - geometry.dilatedKernel(axis)) / geometry.strides[axis] + 1);
  }
  requireOutputShape(context, resultShape);

  const Tensor padded = spreadAndPad(
      context.stageName + ".pad", data, typedConstant(0.0, data->dtype),
      std::vector<std::int64_t>(geometry.spatialRank, 1), geometry.padsBegin, paddedExtents);
  ReductionAxes axes;
  const Expr channelInGroup = axes.add(context.stageName + ".rc", inChannelsPerGroup);
  const std::vector<Expr> kernelOffsets = addKernelAxes(axes, context.stageName, geometry);

  const Tensor convolution =
      compute(context.stageName, resultShape, [&](const std::vector<Expr>& indices) {
        const Expr& outChannel = indices[1];
        Expr inChannel = channelInGroup;
        if (geometry.group > 1)
          inChannel =
              floorDiv(outChannel, intImm(outChannelsPerGroup)) * intImm(inChannelsPerGroup) +
              channelInGroup;
        std::vector<Expr> dataIndex = {indices[0], inChannel};
        std::vector<Expr> weightIndex = {outChannel, channelInGroup};
        for (std::size_t axis = 0; axis < geometry.spatialRank; ++axis) {
          dataIndex.push_back(indices[2 + axis] * intImm(geometry.strides[axis]) +
                              kernelOffsets[axis] * intImm(geometry.dilations[axis]));
          weightIndex.push_back(kernelOffsets[axis]);
        }
        return axes.combine(Reducer::Sum, load(padded, dataIndex) * load(weight, weightIndex));
      });
  return {addChannelBias(context, convolution, outChannels)};
}

} // namespace

void registerConvolutionOperators(OperatorRegistry& registry) {
  registry["Conv"] = lowerConv;
}

} // namespace clustune::te::topi
