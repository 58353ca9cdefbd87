// Lowerings of ONNX Conv and ConvTranspose (1-D, 2-D and 3-D, NC + spatial layout) into compute
// stages, after TVM's topi conv*d_nchw and conv*d_transpose_nchw. A convolution is an optional
// padding stage, then one Sum reduction over (input channels of the group, kernel positions),
// then an optional element-wise bias stage: a Reduce must be the top of a stage body, so the
// bias cannot join the reduction stage.
//
// ConvTranspose is lowered as a plain convolution (stride 1) over a zero-dilated-and-padded copy
// of the input, with the kernel flipped and its channel roles swapped, as TVM does. The
// alternative gather formulation (Select on "(o + pad - k*d) divisible by stride" inside the
// reduction) iterates over the same (channel, tap) space per output, but puts a modulo test and
// a guarded load into the innermost loop of the reduction; here the irregular part is confined to
// the dilation stage, which schedules inline or compute_at like any padding stage, and the
// reduction stays an affine multiply-accumulate that tiles and vectorises like Conv.
#include "support/Error.h"
#include "te/topi/Common.h"

namespace clustune::te::topi {
namespace {

// The normalised attributes of a convolution, one entry per spatial axis.
struct ConvGeometry {
  std::size_t spatialRank = 0;
  std::vector<std::int64_t> kernel;
  std::vector<std::int64_t> strides;
  std::vector<std::int64_t> dilations;
  std::vector<std::int64_t> padsBegin;
  std::vector<std::int64_t> padsEnd;
  std::vector<std::int64_t> outputPadding; // ConvTranspose only
  std::int64_t group = 1;

  std::int64_t dilatedKernel(std::size_t axis) const {
    return (kernel[axis] - 1) * dilations[axis] + 1;
  }
};

// Checks the operand ranks and reads the attributes that Conv and ConvTranspose share.
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

void requireOutputShape(const OperatorContext& context, const Shape& computed) {
  if (outputShape(context) != computed)
    context.fail("the attributes give output shape [" + graph::shapeToString(computed) +
                 "], the task records [" + graph::shapeToString(outputShape(context)) + "]");
}

// Adds bias[channel] to every element: a separate stage, since the convolution's body is a
// Reduce and nothing may wrap it.
Tensor addChannelBias(const OperatorContext& context, const Tensor& convolution,
                      std::int64_t channels) {
  if (!context.hasOperand(2))
    return convolution;
  const Tensor& bias = context.operand(2);
  if (bias->shape != Shape{channels})
    context.fail("bias must have shape [" + std::to_string(channels) + "], got [" +
                 graph::shapeToString(bias->shape) + "]");
  if (bias->dtype != convolution->dtype)
    context.fail("bias has a different dtype from the data");
  return compute(context.stageName + ".bias", convolution->shape,
                 [&](const std::vector<Expr>& indices) {
                   return load(convolution, indices) + load(bias, {indices[1]});
                 });
}

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
  std::vector<Expr> kernelOffsets;
  for (std::size_t axis = 0; axis < geometry.spatialRank; ++axis)
    kernelOffsets.push_back(
        axes.add(context.stageName + ".rk" + std::to_string(axis), geometry.kernel[axis]));

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

// The pads of a ConvTranspose. Explicit pads are the attribute; with an `output_shape`
// attribute or a SAME auto_pad (the normaliser resolves auto_pad for Conv only) ONNX derives them
// from the output shape, which the task records; VALID means none.
void readTransposedPads(const OperatorContext& context, ConvGeometry& geometry, const Shape& data,
                        const Shape& output) {
  readExplicitPads(context, geometry);
  const std::string autoPad = stringAttribute(context, "auto_pad", "NOTSET");
  if (autoPad != "NOTSET" && autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER" &&
      autoPad != "VALID")
    context.fail("unknown auto_pad '" + autoPad + "'");
  const bool fromOutputShape =
      hasAttribute(context, "output_shape") || autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
  if (!fromOutputShape && autoPad == "NOTSET")
    return;
  for (std::size_t axis = 0; axis < geometry.spatialRank; ++axis) {
    std::int64_t total = 0;
    if (fromOutputShape)
      total = geometry.strides[axis] * (data[2 + axis] - 1) + geometry.outputPadding[axis] +
              geometry.dilatedKernel(axis) - output[2 + axis];
    // The split that the ONNX operator specification gives: SAME_UPPER puts the smaller half
    // first; SAME_LOWER and a plain output_shape put it last. An output_shape beyond what the
    // input reaches makes the total negative: as in the ONNX reference implementation, halving
    // rounds down and the negative pads add output positions that no input element reaches.
    const std::int64_t half = total >= 0 ? total / 2 : -((1 - total) / 2);
    geometry.padsBegin[axis] = autoPad == "SAME_UPPER" ? half : total - half;
    geometry.padsEnd[axis] = total - geometry.padsBegin[axis];
  }
}

std::vector<Tensor> lowerConvTranspose(const OperatorContext& context) {
  ConvGeometry geometry = readGeometry(context);
  geometry.outputPadding = intsOfSize(context, "output_padding", geometry.spatialRank);
  const Tensor& data = context.operand(0);
  const Tensor& weight = context.operand(1);
  // The weight is [C_in, C_out / group, kernel...]: the channel roles of Conv's, swapped.
  const std::int64_t inChannels = data->shape[1];
  if (weight->shape[0] != inChannels || inChannels % geometry.group != 0)
    context.fail("channels do not divide into " + std::to_string(geometry.group) +
                 " groups: data [" + graph::shapeToString(data->shape) + "], weight [" +
                 graph::shapeToString(weight->shape) + "]");
  const std::int64_t inChannelsPerGroup = inChannels / geometry.group;
  const std::int64_t outChannelsPerGroup = weight->shape[1];
  const std::int64_t outChannels = outChannelsPerGroup * geometry.group;
  const Shape& recorded = outputShape(context);
  if (recorded.size() != data->shape.size())
    context.fail("the task records an output of rank " + std::to_string(recorded.size()));
  readTransposedPads(context, geometry, data->shape, recorded);

  Shape resultShape = {data->shape[0], outChannels};
  std::vector<std::int64_t> dilatedExtents, dilatedOffsets;
  for (std::size_t axis = 0; axis < geometry.spatialRank; ++axis) {
    const std::int64_t extent = geometry.strides[axis] * (data->shape[2 + axis] - 1) +
                                geometry.outputPadding[axis] + geometry.dilatedKernel(axis) -
                                geometry.padsBegin[axis] - geometry.padsEnd[axis];
    if (extent < 1)
      context.fail("the pads leave an empty output");
    resultShape.push_back(extent);
    // Output o sums dilated positions o + k*d against flipped kernel tap k; input element i
    // reaches output i*stride - padBegin + k'*d through tap k' = kernel - 1 - k, so it sits at
    // dilated position i*stride + (kernel - 1)*d - padBegin.
    const std::int64_t kernelReach = (geometry.kernel[axis] - 1) * geometry.dilations[axis];
    dilatedOffsets.push_back(kernelReach - geometry.padsBegin[axis]);
    dilatedExtents.push_back(extent + kernelReach);
  }
  requireOutputShape(context, resultShape);

  const Tensor dilated =
      spreadAndPad(context.stageName + ".dilate", data, typedConstant(0.0, data->dtype),
                   geometry.strides, dilatedOffsets, dilatedExtents);
  ReductionAxes axes;
  const Expr channelInGroup = axes.add(context.stageName + ".rc", inChannelsPerGroup);
  std::vector<Expr> kernelOffsets;
  for (std::size_t axis = 0; axis < geometry.spatialRank; ++axis)
    kernelOffsets.push_back(
        axes.add(context.stageName + ".rk" + std::to_string(axis), geometry.kernel[axis]));

  const Tensor convolution =
      compute(context.stageName, resultShape, [&](const std::vector<Expr>& indices) {
        const Expr& outChannel = indices[1];
        Expr inChannel = channelInGroup;
        Expr outChannelInGroup = outChannel;
        if (geometry.group > 1) {
          inChannel =
              floorDiv(outChannel, intImm(outChannelsPerGroup)) * intImm(inChannelsPerGroup) +
              channelInGroup;
          outChannelInGroup = floorMod(outChannel, intImm(outChannelsPerGroup));
        }
        std::vector<Expr> dataIndex = {indices[0], inChannel};
        std::vector<Expr> weightIndex = {inChannel, outChannelInGroup};
        for (std::size_t axis = 0; axis < geometry.spatialRank; ++axis) {
          dataIndex.push_back(indices[2 + axis] +
                              kernelOffsets[axis] * intImm(geometry.dilations[axis]));
          weightIndex.push_back(intImm(geometry.kernel[axis] - 1) - kernelOffsets[axis]);
        }
        return axes.combine(Reducer::Sum, load(dilated, dataIndex) * load(weight, weightIndex));
      });
  return {addChannelBias(context, convolution, outChannels)};
}

} // namespace

void registerConvolutionOperators(OperatorRegistry& registry) {
  registry["Conv"] = lowerConv;
  registry["ConvTranspose"] = lowerConvTranspose;
}

} // namespace clustune::te::topi
