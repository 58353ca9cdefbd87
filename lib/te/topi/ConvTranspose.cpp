// The lowering of ONNX ConvTranspose (1-D to 3-D, NC + spatial layout) into compute stages.
//
// Output position o of a spatial axis receives input i through kernel tap k where
// o + pad = i * stride + k * dilation. Without dilation, write o = q * stride + r with the phase r
// in [0, stride), and o + pad = c * stride + r' (c and r' depend on r alone): the taps that reach
// o are k = r' + stride * j, from inputs i = q + c - j, for j = 0, 1, ... So each phase is an
// ordinary correlation over q with ceil(kernel / stride) taps, and the transposed convolution
// is one Sum reduction over (input channels of the group, j per axis) into a phase-major stage
// [N, C_out, r..., q...], then an element-wise stage that interleaves the phases into the output
// layout and adds the bias: the phase (sub-pixel) decomposition of deconvolution libraries.
// Every product is one the operator needs, except at the borders, where zero padding of the
// input (or of the weight, for a kernel that the stride does not divide) fills in. Inside a
// phase the reduction is affine in q, so it tiles and vectorises like Conv; c and r' are a
// floordiv and a floormod of the phase loop only.
//
// A small input (no more positions than the kernel has taps, or an axis with fewer positions
// than taps per phase: DCGAN's first layers) is lowered by columns instead, the GEMM and col2im
// of deconvolution libraries: Z[n, c_out, i..., k] = sum over input channels of
// X[n, c_in, i...] * W[c_in, c_out, k], a product with the kernel's taps contiguous in both W
// and Z (16 lanes for a 4x4 kernel where the phases would give vectors of the input's width),
// then a reduction that sums, for each output, the ceil(kernel / stride) columns per axis that
// reach it. No product is wasted, not even at the borders. Z's taps are one flattened axis, so
// that tiling can vectorise across the whole kernel.
//
// A dilated transposed convolution keeps the general form, as TVM's conv*d_transpose_nchw: a
// plain convolution (stride 1) over a zero-dilated-and-padded copy of the input with the kernel
// flipped, whose products with the inserted zeros are wasted work.
#include "te/topi/ConvGeometry.h"

#include <algorithm>

namespace clustune::te::topi {
namespace {

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

// The channel layout shared by both lowerings: the weight is [C_in, C_out / group, kernel...],
// Conv's channel roles swapped.
struct TransposedChannels {
  std::int64_t inPerGroup = 0;
  std::int64_t outPerGroup = 0;
  std::int64_t out = 0;
};

TransposedChannels readChannels(const OperatorContext& context, const ConvGeometry& geometry) {
  const Shape& data = context.operand(0)->shape;
  const Shape& weight = context.operand(1)->shape;
  const std::int64_t inChannels = data[1];
  if (weight[0] != inChannels || inChannels % geometry.group != 0)
    context.fail("channels do not divide into " + std::to_string(geometry.group) +
                 " groups: data [" + graph::shapeToString(data) + "], weight [" +
                 graph::shapeToString(weight) + "]");
  return {inChannels / geometry.group, weight[1], weight[1] * geometry.group};
}

// The input channel that reduction channel `channelInGroup` reads for `outChannel`, and the
// weight's second index, the output channel within its group.
struct ChannelIndices {
  Expr in;
  Expr outInGroup;
};

ChannelIndices channelIndices(const ConvGeometry& geometry, const TransposedChannels& channels,
                              const Expr& outChannel, const Expr& channelInGroup) {
  if (geometry.group == 1)
    return {channelInGroup, outChannel};
  return {floorDiv(outChannel, intImm(channels.outPerGroup)) * intImm(channels.inPerGroup) +
              channelInGroup,
          floorMod(outChannel, intImm(channels.outPerGroup))};
}

std::int64_t floorDivide(std::int64_t value, std::int64_t divisor) {
  return value >= 0 ? value / divisor : -((divisor - 1 - value) / divisor);
}

// One spatial axis of the phase decomposition: output o = q * stride + r. With
// o + pad = c * stride + r' (c and r' depend on the phase r alone), the taps that reach o are
// k = r' + stride * j, from inputs i = q + c - j.
struct PhaseAxis {
  std::int64_t stride = 1;
  std::int64_t pad = 0;
  std::int64_t quotients = 0;    // ceil(outputs / stride)
  std::int64_t tapsPerPhase = 0; // ceil(kernel / stride)
  // The padded input: where its index 0 sits, and the extent read.
  std::int64_t dataOffset = 0, dataExtent = 0;
  std::int64_t weightExtent = 0; // the kernel, padded to stride * tapsPerPhase

  // c and r' of phase r (constants for a stride of 1).
  Expr carry(const Expr& phase) const {
    return stride == 1 ? intImm(pad) : floorDiv(phase + intImm(pad), intImm(stride));
  }
  Expr firstTap(const Expr& phase) const {
    return stride == 1 ? intImm(0) : floorMod(phase + intImm(pad), intImm(stride));
  }
};

PhaseAxis phaseAxis(std::int64_t stride, std::int64_t kernel, std::int64_t pad,
                    std::int64_t outputs) {
  PhaseAxis axis;
  axis.stride = stride;
  axis.pad = pad;
  axis.quotients = (outputs + stride - 1) / stride;
  axis.tapsPerPhase = (kernel + stride - 1) / stride;
  // i = q + c - j over q in [0, quotients), j in [0, taps), c between the carries of phases 0
  // and stride - 1; k = r' + stride * j reaches stride * taps - 1.
  const std::int64_t lowestCarry = floorDivide(pad, stride);
  const std::int64_t highestCarry = floorDivide(stride - 1 + pad, stride);
  axis.dataOffset = std::max<std::int64_t>(0, axis.tapsPerPhase - 1 - lowestCarry);
  axis.dataExtent = axis.quotients - 1 + highestCarry + axis.dataOffset + 1;
  axis.weightExtent = stride * axis.tapsPerPhase;
  return axis;
}

std::vector<Tensor> lowerByPhases(const OperatorContext& context, const ConvGeometry& geometry,
                                  const TransposedChannels& channels, const Shape& resultShape) {
  const Tensor& data = context.operand(0);
  const Tensor& weight = context.operand(1);
  std::vector<PhaseAxis> axes;
  std::vector<std::int64_t> dataOffsets, dataExtents, weightExtents;
  for (std::size_t a = 0; a < geometry.spatialRank; ++a) {
    axes.push_back(phaseAxis(geometry.strides[a], geometry.kernel[a], geometry.padsBegin[a],
                             resultShape[2 + a]));
    dataOffsets.push_back(axes.back().dataOffset);
    dataExtents.push_back(axes.back().dataExtent);
    weightExtents.push_back(axes.back().weightExtent);
  }
  const Expr zero = typedConstant(0.0, data->dtype);
  const Tensor paddedData =
      spreadAndPad(context.stageName + ".pad", data, zero,
                   std::vector<std::int64_t>(axes.size(), 1), dataOffsets, dataExtents);
  const Tensor paddedWeight = spreadAndPad(
      context.stageName + ".weight_pad", weight, zero, std::vector<std::int64_t>(axes.size(), 1),
      std::vector<std::int64_t>(axes.size(), 0), weightExtents);

  // Phase axes only where the stride is above 1: a phase of extent 1 would be an empty loop.
  Shape phaseShape = {resultShape[0], resultShape[1]};
  for (const PhaseAxis& axis : axes)
    if (axis.stride > 1)
      phaseShape.push_back(axis.stride);
  for (const PhaseAxis& axis : axes)
    phaseShape.push_back(axis.quotients);

  ReductionAxes reduction;
  const Expr channelInGroup = reduction.add(context.stageName + ".rc", channels.inPerGroup);
  std::vector<Expr> steps;
  for (std::size_t a = 0; a < axes.size(); ++a)
    steps.push_back(
        reduction.add(context.stageName + ".rk" + std::to_string(a), axes[a].tapsPerPhase));

  const Tensor phases =
      compute(context.stageName + ".phases", phaseShape, [&](const std::vector<Expr>& indices) {
        const ChannelIndices channel =
            channelIndices(geometry, channels, indices[1], channelInGroup);
        std::vector<Expr> dataIndex = {indices[0], channel.in};
        std::vector<Expr> weightIndex = {channel.in, channel.outInGroup};
        std::size_t phaseIndex = 2;
        std::size_t quotientIndex = phaseShape.size() - axes.size();
        for (std::size_t a = 0; a < axes.size(); ++a) {
          const PhaseAxis& axis = axes[a];
          const Expr phase = axis.stride > 1 ? indices[phaseIndex++] : intImm(0);
          const Expr& quotient = indices[quotientIndex++];
          dataIndex.push_back(quotient + axis.carry(phase) - steps[a] + intImm(axis.dataOffset));
          weightIndex.push_back(axis.firstTap(phase) + steps[a] * intImm(axis.stride));
        }
        return reduction.combine(Reducer::Sum,
                                 load(paddedData, dataIndex) * load(paddedWeight, weightIndex));
      });

  const Tensor bias = context.hasOperand(2) ? context.operand(2) : Tensor();
  if (bias)
    requireChannelBias(context, bias, channels.out, data->dtype);
  const bool interleaved =
      std::any_of(axes.begin(), axes.end(), [](const PhaseAxis& axis) { return axis.stride > 1; });
  if (!interleaved && !bias)
    return {phases};
  return {compute(context.stageName, resultShape, [&](const std::vector<Expr>& indices) {
    std::vector<Expr> phaseIndex = {indices[0], indices[1]};
    std::vector<Expr> quotients;
    for (std::size_t a = 0; a < axes.size(); ++a) {
      const std::int64_t stride = axes[a].stride;
      if (stride > 1)
        phaseIndex.push_back(floorMod(indices[2 + a], intImm(stride)));
      quotients.push_back(stride > 1 ? floorDiv(indices[2 + a], intImm(stride)) : indices[2 + a]);
    }
    phaseIndex.insert(phaseIndex.end(), quotients.begin(), quotients.end());
    Expr value = load(phases, phaseIndex);
    return bias ? value + load(bias, {indices[1]}) : value;
  })};
}

// By columns: the product of every input position with every kernel tap, then each output sums
// the columns that reach it (see the file comment).
std::vector<Tensor> lowerByColumns(const OperatorContext& context, const ConvGeometry& geometry,
                                   const TransposedChannels& channels, const Shape& resultShape) {
  const Tensor& data = context.operand(0);
  const Tensor& weight = context.operand(1);
  const std::size_t rank = geometry.spatialRank;
  // The kernel's taps are one axis, so that a vector can span all of them (16 for 4x4) and not
  // just the last kernel axis; the weight's flattened index is the same expression.
  Shape columnShape = {resultShape[0], resultShape[1]};
  std::int64_t taps = 1;
  for (std::size_t a = 0; a < rank; ++a) {
    columnShape.push_back(data->shape[2 + a]);
    taps *= geometry.kernel[a];
  }
  columnShape.push_back(taps);
  auto tapIndices = [&](const Expr& tap) {
    std::vector<Expr> indices(rank);
    std::int64_t inner = 1;
    for (std::size_t a = rank; a-- > 0;) {
      Expr index = inner == 1 ? tap : floorDiv(tap, intImm(inner));
      indices[a] = a == 0 ? index : floorMod(index, intImm(geometry.kernel[a]));
      inner *= geometry.kernel[a];
    }
    return indices;
  };

  ReductionAxes channelAxis;
  const Expr channelInGroup = channelAxis.add(context.stageName + ".rc", channels.inPerGroup);
  const Tensor columns =
      compute(context.stageName + ".columns", columnShape, [&](const std::vector<Expr>& indices) {
        const ChannelIndices channel =
            channelIndices(geometry, channels, indices[1], channelInGroup);
        std::vector<Expr> dataIndex = {indices[0], channel.in};
        std::vector<Expr> weightIndex = {channel.in, channel.outInGroup};
        for (std::size_t a = 0; a < rank; ++a)
          dataIndex.push_back(indices[2 + a]);
        for (const Expr& tap : tapIndices(indices[2 + rank]))
          weightIndex.push_back(tap);
        return channelAxis.combine(Reducer::Sum, load(data, dataIndex) * load(weight, weightIndex));
      });

  // Output o + pad = c * stride + r': column (i, k) = (c - j, r' + stride * j) for every j
  // whose input and tap exist.
  ReductionAxes columnAxes;
  std::vector<Expr> steps;
  for (std::size_t a = 0; a < rank; ++a)
    steps.push_back(
        columnAxes.add(context.stageName + ".rj" + std::to_string(a),
                       (geometry.kernel[a] + geometry.strides[a] - 1) / geometry.strides[a]));
  const Tensor sum =
      compute(context.stageName + ".col2im", resultShape, [&](const std::vector<Expr>& indices) {
        std::vector<Expr> columnIndex = {indices[0], indices[1]};
        Expr tap = intImm(0);
        Expr inside;
        auto require = [&](Expr condition) { inside = inside ? inside && condition : condition; };
        for (std::size_t a = 0; a < rank; ++a) {
          const Expr shifted = indices[2 + a] + intImm(geometry.padsBegin[a]);
          const Expr stride = intImm(geometry.strides[a]);
          const Expr input = floorDiv(shifted, stride) - steps[a];
          const Expr axisTap = floorMod(shifted, stride) + steps[a] * stride;
          require(input >= intImm(0));
          require(input < intImm(data->shape[2 + a]));
          if (geometry.kernel[a] % geometry.strides[a] != 0)
            require(axisTap < intImm(geometry.kernel[a]));
          columnIndex.push_back(input);
          tap = tap * intImm(geometry.kernel[a]) + axisTap;
        }
        columnIndex.push_back(tap);
        return columnAxes.combine(Reducer::Sum, select(inside, load(columns, columnIndex),
                                                       typedConstant(0.0, data->dtype)));
      });
  return {addChannelBias(context, sum, channels.out)};
}

// Inputs that the column form suits better (see the file comment): no more positions than the
// kernel has taps, or an axis with fewer positions than taps per phase.
bool smallInput(const ConvGeometry& geometry, const Shape& data) {
  std::int64_t positions = 1, taps = 1;
  for (std::size_t a = 0; a < geometry.spatialRank; ++a) {
    positions *= data[2 + a];
    taps *= geometry.kernel[a];
    if (data[2 + a] < (geometry.kernel[a] + geometry.strides[a] - 1) / geometry.strides[a])
      return true;
  }
  return positions <= taps;
}

// The general form, for dilated kernels: a stride-1 convolution of the zero-dilated input.
std::vector<Tensor> lowerByDilation(const OperatorContext& context, const ConvGeometry& geometry,
                                    const TransposedChannels& channels, const Shape& resultShape) {
  const Tensor& data = context.operand(0);
  const Tensor& weight = context.operand(1);
  std::vector<std::int64_t> dilatedExtents, dilatedOffsets;
  for (std::size_t axis = 0; axis < geometry.spatialRank; ++axis) {
    // Output o sums dilated positions o + k*d against flipped kernel tap k; input element i
    // reaches output i*stride - padBegin + k'*d through tap k' = kernel - 1 - k, so it sits at
    // dilated position i*stride + (kernel - 1)*d - padBegin.
    const std::int64_t kernelReach = (geometry.kernel[axis] - 1) * geometry.dilations[axis];
    dilatedOffsets.push_back(kernelReach - geometry.padsBegin[axis]);
    dilatedExtents.push_back(resultShape[2 + axis] + kernelReach);
  }
  const Tensor dilated =
      spreadAndPad(context.stageName + ".dilate", data, typedConstant(0.0, data->dtype),
                   geometry.strides, dilatedOffsets, dilatedExtents);
  ReductionAxes axes;
  const Expr channelInGroup = axes.add(context.stageName + ".rc", channels.inPerGroup);
  const std::vector<Expr> kernelOffsets = addKernelAxes(axes, context.stageName, geometry);

  const Tensor convolution =
      compute(context.stageName, resultShape, [&](const std::vector<Expr>& indices) {
        const ChannelIndices channel =
            channelIndices(geometry, channels, indices[1], channelInGroup);
        std::vector<Expr> dataIndex = {indices[0], channel.in};
        std::vector<Expr> weightIndex = {channel.in, channel.outInGroup};
        for (std::size_t axis = 0; axis < geometry.spatialRank; ++axis) {
          dataIndex.push_back(indices[2 + axis] +
                              kernelOffsets[axis] * intImm(geometry.dilations[axis]));
          weightIndex.push_back(intImm(geometry.kernel[axis] - 1) - kernelOffsets[axis]);
        }
        return axes.combine(Reducer::Sum, load(dilated, dataIndex) * load(weight, weightIndex));
      });
  return {addChannelBias(context, convolution, channels.out)};
}

std::vector<Tensor> lowerConvTranspose(const OperatorContext& context) {
  ConvGeometry geometry = readGeometry(context);
  geometry.outputPadding = intsOfSize(context, "output_padding", geometry.spatialRank);
  const Shape& data = context.operand(0)->shape;
  const TransposedChannels channels = readChannels(context, geometry);
  const Shape& recorded = outputShape(context);
  if (recorded.size() != data.size())
    context.fail("the task records an output of rank " + std::to_string(recorded.size()));
  readTransposedPads(context, geometry, data, recorded);

  Shape resultShape = {data[0], channels.out};
  for (std::size_t axis = 0; axis < geometry.spatialRank; ++axis) {
    const std::int64_t extent = geometry.strides[axis] * (data[2 + axis] - 1) +
                                geometry.outputPadding[axis] + geometry.dilatedKernel(axis) -
                                geometry.padsBegin[axis] - geometry.padsEnd[axis];
    if (extent < 1)
      context.fail("the pads leave an empty output");
    resultShape.push_back(extent);
  }
  requireOutputShape(context, resultShape);
  const bool dilated = std::any_of(geometry.dilations.begin(), geometry.dilations.end(),
                                   [](std::int64_t dilation) { return dilation > 1; });
  if (dilated)
    return lowerByDilation(context, geometry, channels, resultShape);
  return smallInput(geometry, data) ? lowerByColumns(context, geometry, channels, resultShape)
                                    : lowerByPhases(context, geometry, channels, resultShape);
}

} // namespace

void registerConvTransposeOperators(OperatorRegistry& registry) {
  registry["ConvTranspose"] = lowerConvTranspose;
}

} // namespace clustune::te::topi
