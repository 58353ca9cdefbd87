// Lowerings of the blocked channel layout's internal operators (graph/BlockedLayout.h), after
// TVM's topi conv2d_NCHWc and layout_transform: ConvNCHWc is a padding stage, one Sum over
// (input channel blocks, kernel rows, kernel columns, channels in a block) and an optional bias
// stage; LayoutTransform is a copy stage that splits or joins the channel axis.
#include "graph/BlockedLayout.h"

#include "te/topi/ConvGeometry.h"

namespace clustune::te::topi {
namespace {

std::vector<Tensor> lowerConvNCHWc(const OperatorContext& context) {
  requireOperands(context, 2, 3);
  requireOutputs(context, 1);
  const Tensor& data = context.operand(0);   // [N, C/x, H, W, x]
  const Tensor& weight = context.operand(1); // [K/y, C/x, KH, KW, x, y]
  const Shape& in = data->shape;
  const Shape& w = weight->shape;
  if (in.size() != 5 || w.size() != 6 || w[1] != in[1] || w[4] != in[4])
    context.fail("expects data [N, C/x, H, W, x] and weight [K/y, C/x, KH, KW, x, y], got [" +
                 graph::shapeToString(in) + "] and [" + graph::shapeToString(w) + "]");
  if (data->dtype != weight->dtype)
    context.fail("data and weight have different dtypes");
  const auto kernel = intsOfSize(context, "kernel_shape", 2);
  const auto strides = intsOfSize(context, "strides", 2);
  const auto dilations = intsOfSize(context, "dilations", 2);
  const auto pads = intsOfSize(context, "pads", 4); // top, left, bottom, right
  if (kernel[0] != w[2] || kernel[1] != w[3])
    context.fail("kernel_shape does not match the weight shape");
  Shape padded = in, resultShape = {in[0], w[0], 0, 0, w[5]};
  for (std::size_t axis = 0; axis < 2; ++axis) {
    if (strides[axis] < 1 || dilations[axis] < 1 || pads[axis] < 0 || pads[axis + 2] < 0)
      context.fail("strides and dilations must be positive and pads non-negative");
    padded[2 + axis] = in[2 + axis] + pads[axis] + pads[axis + 2];
    const std::int64_t span = (kernel[axis] - 1) * dilations[axis] + 1;
    if (padded[2 + axis] < span)
      context.fail("the dilated kernel is larger than the padded input");
    resultShape[2 + axis] = (padded[2 + axis] - span) / strides[axis] + 1;
  }
  requireOutputShape(context, resultShape);

  Tensor source = data;
  if (padded != in)
    source = compute(context.stageName + ".pad", padded, [&](const std::vector<Expr>& indices) {
      Expr inBounds;
      std::vector<Expr> sourceIndex = indices;
      for (std::size_t axis = 0; axis < 2; ++axis) {
        const Expr& position = indices[2 + axis];
        const std::int64_t begin = pads[axis], last = pads[axis] + in[2 + axis] - 1;
        auto require = [&](Expr condition) {
          inBounds = inBounds ? inBounds && condition : condition;
        };
        if (begin > 0)
          require(position >= intImm(begin));
        if (padded[2 + axis] - 1 > last)
          require(position <= intImm(last));
        sourceIndex[2 + axis] = position - intImm(begin);
      }
      return select(inBounds, load(data, sourceIndex), typedConstant(0.0, data->dtype));
    });

  ReductionAxes axes;
  const Expr channelBlock = axes.add(context.stageName + ".rcb", in[1]);
  const Expr row = axes.add(context.stageName + ".rk0", kernel[0]);
  const Expr column = axes.add(context.stageName + ".rk1", kernel[1]);
  const Expr channel = axes.add(context.stageName + ".rci", in[4]);
  const Tensor convolution =
      compute(context.stageName, resultShape, [&](const std::vector<Expr>& indices) {
        const Expr y = indices[2] * intImm(strides[0]) + row * intImm(dilations[0]);
        const Expr x = indices[3] * intImm(strides[1]) + column * intImm(dilations[1]);
        return axes.combine(Reducer::Sum, load(source, {indices[0], channelBlock, y, x, channel}) *
                                              load(weight, {indices[1], channelBlock, row, column,
                                                            channel, indices[4]}));
      });
  if (!context.hasOperand(2))
    return {convolution};
  const Tensor& bias = context.operand(2);
  requireChannelBias(context, bias, w[0] * w[5], convolution->dtype);
  return {compute(context.stageName + ".bias", resultShape, [&](const std::vector<Expr>& indices) {
    return load(convolution, indices) + load(bias, {indices[1] * intImm(w[5]) + indices[4]});
  })};
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
  registry[graph::kLayoutTransformOp] = lowerLayoutTransform;
}

} // namespace clustune::te::topi
