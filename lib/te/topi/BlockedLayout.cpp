// Lowerings of the blocked channel layout's internal operators (graph/BlockedLayout.h), after
// TVM's topi conv2d_NCHWc, depthwise_conv2d_NCHWc and layout_transform. ConvNCHWc is a padding
// stage, one Sum over (input channel blocks of the group, kernel rows, kernel columns, channels
// in a block) and an optional bias stage; DepthwiseConvNCHWc the same with a Sum over the kernel
// window only, each channel of a block its own lane; LayoutTransform is a copy stage that splits or
// joins the channel axis.
#include "graph/BlockedLayout.h"

#include "te/topi/ConvGeometry.h"

namespace clustune::te::topi {
namespace {

// The window of a blocked 2-D convolution: its attributes, checked against the weight
// [.., .., KH, KW, .., ..], and the extents of the padded input and of the result.
struct BlockedWindow {
  std::vector<std::int64_t> kernel, strides, dilations, padsBegin, paddedExtents, outputExtents;
};

BlockedWindow readBlockedWindow(const OperatorContext& context, const Shape& data,
                                const Shape& weight) {
  BlockedWindow window;
  window.kernel = intsOfSize(context, "kernel_shape", 2);
  window.strides = intsOfSize(context, "strides", 2);
  window.dilations = intsOfSize(context, "dilations", 2);
  const auto pads = intsOfSize(context, "pads", 4); // top, left, bottom, right
  if (window.kernel[0] != weight[2] || window.kernel[1] != weight[3])
    context.fail("kernel_shape does not match the weight shape");
  for (std::size_t axis = 0; axis < 2; ++axis) {
    if (window.strides[axis] < 1 || window.dilations[axis] < 1 || pads[axis] < 0 ||
        pads[axis + 2] < 0)
      context.fail("strides and dilations must be positive and pads non-negative");
    const std::int64_t padded = data[2 + axis] + pads[axis] + pads[axis + 2];
    const std::int64_t span = (window.kernel[axis] - 1) * window.dilations[axis] + 1;
    if (padded < span)
      context.fail("the dilated kernel is larger than the padded input");
    window.padsBegin.push_back(pads[axis]);
    window.paddedExtents.push_back(padded);
    window.outputExtents.push_back((padded - span) / window.strides[axis] + 1);
  }
  return window;
}

// What both blocked convolutions build before their reduction: the checked window, the result
// shape [N, outBlocks, OH, OW, lanes] (which the task must record) and the padded data.
struct BlockedConvolution {
  BlockedWindow window;
  Shape resultShape;
  Tensor source;
};

BlockedConvolution prepareBlockedConvolution(const OperatorContext& context, const Tensor& data,
                                             const Tensor& weight, std::int64_t outBlocks,
                                             std::int64_t lanes) {
  if (data->dtype != weight->dtype)
    context.fail("data and weight have different dtypes");
  BlockedConvolution convolution;
  convolution.window = readBlockedWindow(context, data->shape, weight->shape);
  const BlockedWindow& window = convolution.window;
  convolution.resultShape = {data->shape[0], outBlocks, window.outputExtents[0],
                             window.outputExtents[1], lanes};
  requireOutputShape(context, convolution.resultShape);
  convolution.source =
      spreadAndPad(context.stageName + ".pad", data, typedConstant(0.0, data->dtype), {1, 1},
                   window.padsBegin, window.paddedExtents, 1);
  return convolution;
}

// The input rows and columns that output position (indices[2], indices[3]) reads at a tap.
std::pair<Expr, Expr> tapPosition(const BlockedWindow& window, const std::vector<Expr>& indices,
                                  const Expr& row, const Expr& column) {
  return {indices[2] * intImm(window.strides[0]) + row * intImm(window.dilations[0]),
          indices[3] * intImm(window.strides[1]) + column * intImm(window.dilations[1])};
}

// bias[channel block * block + lane] added in a stage of its own: a Reduce must be the top of
// a stage body.
Tensor addBlockedBias(const OperatorContext& context, const Tensor& convolution) {
  if (!context.hasOperand(2))
    return convolution;
  const Shape& shape = convolution->shape;
  const Tensor& bias = context.operand(2);
  requireChannelBias(context, bias, shape[1] * shape[4], convolution->dtype);
  return compute(context.stageName + ".bias", shape, [&](const std::vector<Expr>& indices) {
    return load(convolution, indices) + load(bias, {indices[1] * intImm(shape[4]) + indices[4]});
  });
}

std::vector<Tensor> lowerConvNCHWc(const OperatorContext& context) {
  requireOperands(context, 2, 3);
  requireOutputs(context, 1);
  const Tensor& data = context.operand(0);   // [N, C/x, H, W, x]
  const Tensor& weight = context.operand(1); // [K/y, C/(x·group), KH, KW, x, y]
  const Shape& in = data->shape;
  const Shape& w = weight->shape;
  const std::int64_t group = intAttribute(context, "group", 1);
  if (group < 1 || in.size() != 5 || w.size() != 6 || w[1] * group != in[1] || w[4] != in[4] ||
      w[0] % group != 0)
    context.fail("expects data [N, C/x, H, W, x] and weight [K/y, C/(x·group), KH, KW, x, y], "
                 "got [" +
                 graph::shapeToString(in) + "] and [" + graph::shapeToString(w) + "] with group " +
                 std::to_string(group));
  const auto [window, resultShape, source] =
      prepareBlockedConvolution(context, data, weight, w[0], w[5]);
  ReductionAxes axes;
  const Expr channelBlock = axes.add(context.stageName + ".rcb", w[1]);
  const Expr row = axes.add(context.stageName + ".rk0", window.kernel[0]);
  const Expr column = axes.add(context.stageName + ".rk1", window.kernel[1]);
  const Expr channel = axes.add(context.stageName + ".rci", in[4]);
  return {addBlockedBias(
      context, compute(context.stageName, resultShape, [&](const std::vector<Expr>& indices) {
        const auto [y, x] = tapPosition(window, indices, row, column);
        // Output block k reads the input blocks of its group, k / (K/y/group).
        const Expr inputBlock =
            group == 1 ? channelBlock
                       : floorDiv(indices[1], intImm(w[0] / group)) * intImm(w[1]) + channelBlock;
        return axes.combine(Reducer::Sum, load(source, {indices[0], inputBlock, y, x, channel}) *
                                              load(weight, {indices[1], channelBlock, row, column,
                                                            channel, indices[4]}));
      }))};
}

std::vector<Tensor> lowerDepthwiseConvNCHWc(const OperatorContext& context) {
  requireOperands(context, 2, 3);
  requireOutputs(context, 1);
  const Tensor& data = context.operand(0);   // [N, C/x, H, W, x]
  const Tensor& weight = context.operand(1); // [C/x, 1, KH, KW, 1, x]
  const Shape& in = data->shape;
  const Shape& w = weight->shape;
  if (in.size() != 5 || w.size() != 6 || w[0] != in[1] || w[1] != 1 || w[4] != 1 || w[5] != in[4])
    context.fail("expects data [N, C/x, H, W, x] and weight [C/x, 1, KH, KW, 1, x], got [" +
                 graph::shapeToString(in) + "] and [" + graph::shapeToString(w) + "]");
  const auto [window, resultShape, source] =
      prepareBlockedConvolution(context, data, weight, in[1], in[4]);
  ReductionAxes axes;
  const Expr row = axes.add(context.stageName + ".rk0", window.kernel[0]);
  const Expr column = axes.add(context.stageName + ".rk1", window.kernel[1]);
  return {addBlockedBias(
      context, compute(context.stageName, resultShape, [&](const std::vector<Expr>& indices) {
        const auto [y, x] = tapPosition(window, indices, row, column);
        return axes.combine(Reducer::Sum, load(source, {indices[0], indices[1], y, x, indices[4]}) *
                                              load(weight, {indices[1], intImm(0), row, column,
                                                            intImm(0), indices[4]}));
      }))};
}

std::vector<Tensor> lowerLayoutTransform(const OperatorContext& context) {
  requireOperands(context, 1, 1);
  requireOutputs(context, 1);
  const Tensor& x = context.operand(0);
  const auto from = graph::parseChannelLayout(stringAttribute(context, "src_layout"));
  const auto to = graph::parseChannelLayout(stringAttribute(context, "dst_layout"));
  if (!from || !to || (*from == 0) == (*to == 0))
    context.fail("converts between NCHW and NCHW<x>c only");
  const Shape& shape = outputShape(context);
  if (*from == 0) {
    if (x->shape.size() != 4 || shape != graph::blockedActivationShape(x->shape, *to))
      context.fail("cannot lay out [" + graph::shapeToString(x->shape) + "] as [" +
                   graph::shapeToString(shape) + "]");
    return {compute(context.stageName, shape, [&](const std::vector<Expr>& i) {
      return load(x, {i[0], i[1] * intImm(*to) + i[4], i[2], i[3]});
    })};
  }
  if (x->shape.size() != 5 || x->shape[4] != *from ||
      shape != Shape{x->shape[0], x->shape[1] * *from, x->shape[2], x->shape[3]})
    context.fail("cannot lay out [" + graph::shapeToString(x->shape) + "] as [" +
                 graph::shapeToString(shape) + "]");
  return {compute(context.stageName, shape, [&](const std::vector<Expr>& i) {
    return load(x,
                {i[0], floorDiv(i[1], intImm(*from)), i[2], i[3], floorMod(i[1], intImm(*from))});
  })};
}

} // namespace

void registerBlockedLayoutOperators(OperatorRegistry& registry) {
  registry[graph::kConvNCHWcOp] = lowerConvNCHWc;
  registry[graph::kDepthwiseConvNCHWcOp] = lowerDepthwiseConvNCHWc;
  registry[graph::kLayoutTransformOp] = lowerLayoutTransform;
}

} // namespace clustune::te::topi
