// Lowerings of the blocked channel layout's internal operators (graph/BlockedLayout.h), after
// TVM's topi conv2d_NCHWc, depthwise_conv2d_NCHWc and layout_transform, over 2-D and 3-D images
// alike. ConvNCHWc is a padding stage, one Sum over (input channel blocks of the group, the
// kernel axes, channels in a block) and an optional bias stage; DepthwiseConvNCHWc the same with a
// Sum over the kernel window only, each channel of a block its own lane; LayoutTransform is a copy
// stage that splits or joins the channel axis.
#include "graph/BlockedLayout.h"

#include "te/topi/ConvGeometry.h"

#include <initializer_list>
#include <vector>

namespace clustune::te::topi {
namespace {

// The window of a blocked convolution over any number of spatial axes: its attributes, checked
// against the weight [.., .., k..., .., ..], and the extents of the padded input and of the
// result, one entry per spatial axis.
struct BlockedWindow {
  std::vector<std::int64_t> kernel, strides, dilations, padsBegin, paddedExtents, outputExtents;
};

BlockedWindow readBlockedWindow(const OperatorContext& context, const Shape& data,
                                const Shape& weight) {
  const std::size_t spatial = data.size() - 3;
  BlockedWindow window;
  window.kernel = intsOfSize(context, "kernel_shape", spatial);
  window.strides = intsOfSize(context, "strides", spatial);
  window.dilations = intsOfSize(context, "dilations", spatial);
  const auto pads = intsOfSize(context, "pads", 2 * spatial); // begins, then ends
  for (std::size_t axis = 0; axis < spatial; ++axis) {
    if (window.kernel[axis] != weight[2 + axis])
      context.fail("kernel_shape does not match the weight shape");
    if (window.strides[axis] < 1 || window.dilations[axis] < 1 || pads[axis] < 0 ||
        pads[axis + spatial] < 0)
      context.fail("strides and dilations must be positive and pads non-negative");
    const std::int64_t padded = data[2 + axis] + pads[axis] + pads[axis + spatial];
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
// shape [N, outBlocks, O..., lanes] (which the task must record) and the padded data.
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
  convolution.resultShape = {data->shape[0], outBlocks};
  convolution.resultShape.insert(convolution.resultShape.end(), window.outputExtents.begin(),
                                 window.outputExtents.end());
  convolution.resultShape.push_back(lanes);
  requireOutputShape(context, convolution.resultShape);
  convolution.source =
      spreadAndPad(context.stageName + ".pad", data, typedConstant(0.0, data->dtype),
                   std::vector<std::int64_t>(window.kernel.size(), 1), window.padsBegin,
                   window.paddedExtents, 1);
  return convolution;
}

// One reduction axis per kernel axis, `<stage>.rk<axis>`.
std::vector<Expr> addTapAxes(ReductionAxes& axes, const std::string& stageName,
                             const BlockedWindow& window) {
  std::vector<Expr> taps;
  for (std::size_t axis = 0; axis < window.kernel.size(); ++axis)
    taps.push_back(axes.add(stageName + ".rk" + std::to_string(axis), window.kernel[axis]));
  return taps;
}

// The input positions that the output position indices[2..] reads at a tap.
std::vector<Expr> tapPositions(const BlockedWindow& window, const std::vector<Expr>& indices,
                               const std::vector<Expr>& taps) {
  std::vector<Expr> positions;
  for (std::size_t axis = 0; axis < taps.size(); ++axis)
    positions.push_back(indices[2 + axis] * intImm(window.strides[axis]) +
                        taps[axis] * intImm(window.dilations[axis]));
  return positions;
}

// {first, second, middle..., last...} as one index list.
std::vector<Expr> indexList(std::initializer_list<Expr> head, const std::vector<Expr>& middle,
                            std::initializer_list<Expr> tail) {
  std::vector<Expr> list(head);
  list.insert(list.end(), middle.begin(), middle.end());
  list.insert(list.end(), tail);
  return list;
}

// bias[channel block * block + lane] added in a stage of its own: a Reduce must be the top of
// a stage body.
Tensor addBlockedBias(const OperatorContext& context, const Tensor& convolution) {
  if (!context.hasOperand(2))
    return convolution;
  const Shape& shape = convolution->shape;
  const Tensor& bias = context.operand(2);
  requireChannelBias(context, bias, shape[1] * shape.back(), convolution->dtype);
  return compute(context.stageName + ".bias", shape, [&](const std::vector<Expr>& indices) {
    return load(convolution, indices) +
           load(bias, {indices[1] * intImm(shape.back()) + indices.back()});
  });
}

// Whether `data` is [N, C/x, S..., x] with one or more spatial axes and `weight` has the rank of
// [K/y, C/x, k..., x, y].
bool blockedRanks(const Shape& data, const Shape& weight) {
  return data.size() >= 4 && weight.size() == data.size() + 1;
}

std::vector<Tensor> lowerConvNCHWc(const OperatorContext& context) {
  requireOperands(context, 2, 3);
  requireOutputs(context, 1);
  const Tensor& data = context.operand(0);   // [N, C/x, S..., x]
  const Tensor& weight = context.operand(1); // [K/y, C/(x·group), k..., x, y]
  const Shape& in = data->shape;
  const Shape& w = weight->shape;
  const std::int64_t group = intAttribute(context, "group", 1);
  if (group < 1 || !blockedRanks(in, w) || w[1] * group != in[1] || w[w.size() - 2] != in.back() ||
      w[0] % group != 0)
    context.fail("expects data [N, C/x, S..., x] and weight [K/y, C/(x·group), k..., x, y], "
                 "got [" +
                 graph::shapeToString(in) + "] and [" + graph::shapeToString(w) + "] with group " +
                 std::to_string(group));
  const auto [window, resultShape, source] =
      prepareBlockedConvolution(context, data, weight, w[0], w.back());
  ReductionAxes axes;
  const Expr channelBlock = axes.add(context.stageName + ".rcb", w[1]);
  const std::vector<Expr> taps = addTapAxes(axes, context.stageName, window);
  const Expr channel = axes.add(context.stageName + ".rci", in.back());
  return {addBlockedBias(
      context, compute(context.stageName, resultShape, [&](const std::vector<Expr>& indices) {
        // Output block k reads the input blocks of its group, k / (K/y/group).
        const Expr inputBlock =
            group == 1 ? channelBlock
                       : floorDiv(indices[1], intImm(w[0] / group)) * intImm(w[1]) + channelBlock;
        return axes.combine(
            Reducer::Sum, load(source, indexList({indices[0], inputBlock},
                                                 tapPositions(window, indices, taps), {channel})) *
                              load(weight, indexList({indices[1], channelBlock}, taps,
                                                     {channel, indices.back()})));
      }))};
}

std::vector<Tensor> lowerDepthwiseConvNCHWc(const OperatorContext& context) {
  requireOperands(context, 2, 3);
  requireOutputs(context, 1);
  const Tensor& data = context.operand(0);   // [N, C/x, S..., x]
  const Tensor& weight = context.operand(1); // [C/x, 1, k..., 1, x]
  const Shape& in = data->shape;
  const Shape& w = weight->shape;
  if (!blockedRanks(in, w) || w[0] != in[1] || w[1] != 1 || w[w.size() - 2] != 1 ||
      w.back() != in.back())
    context.fail("expects data [N, C/x, S..., x] and weight [C/x, 1, k..., 1, x], got [" +
                 graph::shapeToString(in) + "] and [" + graph::shapeToString(w) + "]");
  const auto [window, resultShape, source] =
      prepareBlockedConvolution(context, data, weight, in[1], in.back());
  ReductionAxes axes;
  const std::vector<Expr> taps = addTapAxes(axes, context.stageName, window);
  return {addBlockedBias(
      context, compute(context.stageName, resultShape, [&](const std::vector<Expr>& indices) {
        return axes.combine(
            Reducer::Sum,
            load(source, indexList({indices[0], indices[1]}, tapPositions(window, indices, taps),
                                   {indices.back()})) *
                load(weight,
                     indexList({indices[1], intImm(0)}, taps, {intImm(0), indices.back()})));
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
  const Shape& in = x->shape;
  if (*from == 0) {
    if (in.size() < 3 || in[1] % *to != 0 || shape != graph::blockedActivationShape(in, *to))
      context.fail("cannot lay out [" + graph::shapeToString(in) + "] as [" +
                   graph::shapeToString(shape) + "]");
    return {compute(context.stageName, shape, [&](const std::vector<Expr>& i) {
      std::vector<Expr> source = {i[0], i[1] * intImm(*to) + i.back()};
      source.insert(source.end(), i.begin() + 2, i.end() - 1);
      return load(x, source);
    })};
  }
  if (in.size() < 4 || in.back() != *from || shape != graph::unblockedActivationShape(in))
    context.fail("cannot lay out [" + graph::shapeToString(in) + "] as [" +
                 graph::shapeToString(shape) + "]");
  return {compute(context.stageName, shape, [&](const std::vector<Expr>& i) {
    std::vector<Expr> source = {i[0], floorDiv(i[1], intImm(*from))};
    source.insert(source.end(), i.begin() + 2, i.end());
    source.push_back(floorMod(i[1], intImm(*from)));
    return load(x, source);
  })};
}

} // namespace

void registerBlockedLayoutOperators(OperatorRegistry& registry) {
  registry[graph::kConvNCHWcOp] = lowerConvNCHWc;
  registry[graph::kDepthwiseConvNCHWcOp] = lowerDepthwiseConvNCHWc;
  registry[graph::kLayoutTransformOp] = lowerLayoutTransform;
}

} // namespace clustune::te::topi
