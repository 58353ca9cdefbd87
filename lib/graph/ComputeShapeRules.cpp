// Shape rules (ShapeRules.h) of the operators that compute: convolutions and pooling windows,
// matrix products, reductions and normalisations. The window arithmetic follows ONNX's
// definitions (floor, or ceil with ceil_mode; SAME auto_pad keeps ceil(input / stride)), and a
// window larger than its padded input is named here rather than left to a consumer.
#include "graph/BlockedLayout.h"
#include "graph/Einsum.h"
#include "graph/ShapeRules.h"
#include "support/Error.h"

#include <algorithm>
#include <array>
#include <numeric>

namespace clustune::graph {
namespace {

std::string extentText(const std::vector<std::int64_t>& dims) {
  std::string text;
  for (auto dim : dims)
    text += (text.empty() ? "" : "x") + std::to_string(dim);
  return text;
}

// Window attributes beyond this are refused, so that the window arithmetic cannot overflow.
constexpr std::int64_t kMaxWindowAttribute = std::int64_t{1} << 30;

// An INTS attribute of one entry per spatial axis (or two, for pads), else `fallback`.
std::vector<std::int64_t> perAxis(const ShapeContext& context, const char* key, std::size_t count,
                                  std::int64_t fallback) {
  if (!context.node.attribute(key))
    return std::vector<std::int64_t>(count, fallback);
  auto values = context.node.intsAttribute(key);
  if (values.size() != count)
    context.fail("attribute " + std::string(key) + " has " + std::to_string(values.size()) +
                 " entries, not " + std::to_string(count));
  for (std::int64_t value : values)
    if (value > kMaxWindowAttribute || value < -kMaxWindowAttribute)
      context.fail("attribute " + std::string(key) + " has an entry of " + std::to_string(value) +
                   ", beyond what clustune accepts");
  return values;
}

// The spatial output extents of a convolution or pooling window over `input` (N, C, spatial...).
Shape windowedExtents(const ShapeContext& context, const Shape& input,
                      const std::vector<std::int64_t>& kernel, bool ceilMode) {
  const std::size_t spatial = kernel.size();
  const auto strides = perAxis(context, "strides", spatial, 1);
  const auto dilations = perAxis(context, "dilations", spatial, 1);
  const std::string padding = context.node.stringAttribute("auto_pad", "NOTSET");
  if (padding != "NOTSET" && padding != "VALID" && padding != "SAME_UPPER" &&
      padding != "SAME_LOWER")
    context.fail("unknown auto_pad '" + padding + "'");
  std::vector<std::int64_t> pads(2 * spatial, 0);
  if (padding == "NOTSET")
    pads = perAxis(context, "pads", 2 * spatial, 0);
  for (std::size_t axis = 0; axis < spatial; ++axis)
    if (kernel[axis] < 1 || kernel[axis] > kMaxWindowAttribute || strides[axis] < 1 ||
        dilations[axis] < 1 || pads[axis] < 0 || pads[axis + spatial] < 0)
      context.fail("kernel_shape, strides and dilations must be positive and pads non-negative");
  Shape extents;
  std::vector<std::int64_t> padded, span;
  bool fits = true;
  for (std::size_t axis = 0; axis < spatial; ++axis) {
    const std::int64_t extent = input[2 + axis];
    span.push_back(dilations[axis] * (kernel[axis] - 1) + 1);
    if (padding == "SAME_UPPER" || padding == "SAME_LOWER") {
      padded.push_back(extent);
      extents.push_back(extent / strides[axis] + (extent % strides[axis] != 0));
      continue;
    }
    const __int128 wide = static_cast<__int128>(extent) + pads[axis] + pads[axis + spatial];
    if (wide > INT64_MAX - kMaxWindowAttribute)
      context.fail(context.node.op + "'s padded input extent overflows");
    padded.push_back(static_cast<std::int64_t>(wide));
    fits = fits && span.back() <= padded.back();
    const std::int64_t room = padded.back() - span.back();
    extents.push_back(
        1 + (ceilMode ? (room + strides[axis] - 1) / strides[axis] : room / strides[axis]));
  }
  if (!fits) {
    const std::string op = context.node.op;
    const std::string what = op == "Conv" ? "kernel" : "window";
    if (span == kernel)
      context.fail(op + " " + what + " " + extentText(kernel) +
                   " is larger than its padded input " + extentText(padded));
    context.fail(op + " " + what + " " + extentText(kernel) + " dilated by " +
                 extentText(dilations) + " spans " + extentText(span) +
                 ", more than its padded input " + extentText(padded));
  }
  return extents;
}

void checkConvolutionRanks(const ShapeContext& context) {
  const std::size_t inputRank = context.rank(0), weightRank = context.rank(1);
  if (inputRank < 3 || weightRank != inputRank)
    context.fail("the input has rank " + std::to_string(inputRank) + " and the weight rank " +
                 std::to_string(weightRank) + "; both must be the same, at least 3");
}

std::vector<std::int64_t> weightKernel(const ShapeContext& context) {
  const Shape& weight = context.shape(1);
  std::vector<std::int64_t> kernel(weight.begin() + 2, weight.end());
  if (context.node.attribute("kernel_shape") &&
      context.node.intsAttribute("kernel_shape") != kernel)
    context.fail("attribute kernel_shape " +
                 extentText(context.node.intsAttribute("kernel_shape")) +
                 " disagrees with the weight's kernel " + extentText(kernel));
  return kernel;
}

void checkBias(const ShapeContext& context, std::int64_t channels) {
  if (context.has(2) && context.shape(2) != Shape{channels})
    context.fail(context.node.op + "'s bias is " + shapeText(context.shape(2)) + ", not " +
                 std::to_string(channels) + " (one per output channel)");
}

void conv(ShapeContext& context) {
  checkConvolutionRanks(context);
  const Value& input = context.input(0);
  const Shape& weight = context.shape(1);
  const std::int64_t group = context.node.intAttribute("group", 1);
  if (group < 1 || group > kMaxWindowAttribute || weight[0] % group != 0 ||
      static_cast<__int128>(weight[1]) * group != input.shape[1])
    context.fail("Conv's input has " + std::to_string(input.shape[1]) + " channels, its weight " +
                 shapeText(weight) + " with group " + std::to_string(group) + " takes " +
                 std::to_string(weight[1] * group));
  checkBias(context, weight[0]);
  Shape shape{input.shape[0], weight[0]};
  const Shape spatial = windowedExtents(context, input.shape, weightKernel(context), false);
  shape.insert(shape.end(), spatial.begin(), spatial.end());
  context.setOutput(0, input.dtype, shape);
}

// The kernel k... of a blocked weight [.., .., k..., .., ..].
Shape blockedKernel(const Shape& weight) {
  return {weight.begin() + 2, weight.end() - 2};
}

// [N, blocks, spatial..., lanes].
Shape blockedOutputShape(std::int64_t batch, std::int64_t blocks, const Shape& spatial,
                         std::int64_t lanes) {
  Shape shape = {batch, blocks};
  shape.insert(shape.end(), spatial.begin(), spatial.end());
  shape.push_back(lanes);
  return shape;
}

// Whether data is [N, C/x, S..., x] with 2 or 3 spatial axes and the weight has the matching
// rank.
bool blockedConvolutionRanks(const Shape& data, const Shape& weight) {
  return (data.size() == 5 || data.size() == 6) && weight.size() == data.size() + 1;
}

// ConvNCHWc (graph/BlockedLayout.h): data [N, C/x, S..., x], weight
// [K/y, C/(x·group), k..., x, y], bias [K]; output [N, K/y, O..., y].
void convNCHWc(ShapeContext& context) {
  const Shape& data = context.shape(0);
  const Shape& weight = context.shape(1);
  const std::int64_t group = context.node.intAttribute("group", 1);
  if (group < 1 || group > kMaxWindowAttribute)
    context.fail("ConvNCHWc's group must be positive");
  if (!blockedConvolutionRanks(data, weight) || weight[1] * group != data[1] ||
      weight[weight.size() - 2] != data.back() || weight[0] % group != 0)
    context.fail("ConvNCHWc's data " + shapeText(data) + " and weight " + shapeText(weight) +
                 " are not [N, C/x, S..., x] and [K/y, C/(x·group), k..., x, y] with group " +
                 std::to_string(group));
  checkBias(context, weight[0] * weight.back());
  const Shape spatial =
      windowedExtents(context, unblockedActivationShape(data), blockedKernel(weight), false);
  context.setOutput(0, context.input(0).dtype,
                    blockedOutputShape(data[0], weight[0], spatial, weight.back()));
}

// DepthwiseConvNCHWc (graph/BlockedLayout.h): data [N, C/x, S..., x], weight
// [C/x, 1, k..., 1, x], bias [C]; output [N, C/x, O..., x].
void depthwiseConvNCHWc(ShapeContext& context) {
  const Shape& data = context.shape(0);
  const Shape& weight = context.shape(1);
  if (!blockedConvolutionRanks(data, weight) || weight[0] != data[1] || weight[1] != 1 ||
      weight[weight.size() - 2] != 1 || weight.back() != data.back())
    context.fail("DepthwiseConvNCHWc's data " + shapeText(data) + " and weight " +
                 shapeText(weight) + " are not [N, C/x, S..., x] and [C/x, 1, k..., 1, x]");
  checkBias(context, data[1] * data.back());
  const Shape spatial =
      windowedExtents(context, unblockedActivationShape(data), blockedKernel(weight), false);
  context.setOutput(0, context.input(0).dtype,
                    blockedOutputShape(data[0], data[1], spatial, data.back()));
}

void convTranspose(ShapeContext& context) {
  checkConvolutionRanks(context);
  const Value& input = context.input(0);
  const Shape& weight = context.shape(1);
  const std::int64_t group = context.node.intAttribute("group", 1);
  if (group < 1 || group > kMaxWindowAttribute || input.shape[1] != weight[0] ||
      static_cast<__int128>(weight[1]) * group > kMaxWindowAttribute)
    context.fail("ConvTranspose's input has " + std::to_string(input.shape[1]) +
                 " channels, its weight " + shapeText(weight) + " takes " +
                 std::to_string(weight[0]));
  checkBias(context, weight[1] * group);
  const auto kernel = weightKernel(context);
  const std::size_t spatial = kernel.size();
  Shape shape{input.shape[0], weight[1] * group};
  if (context.node.attribute("output_shape")) {
    auto requested = context.node.intsAttribute("output_shape");
    if (requested.size() == spatial + 2) // some exporters give N and C too
      requested.erase(requested.begin(), requested.begin() + 2);
    if (requested.size() != spatial)
      context.fail("ConvTranspose's output_shape " + extentText(requested) + " should have " +
                   std::to_string(spatial) + " spatial extents");
    shape.insert(shape.end(), requested.begin(), requested.end());
    context.setOutput(0, input.dtype, shape);
    return;
  }
  const auto strides = perAxis(context, "strides", spatial, 1);
  const auto dilations = perAxis(context, "dilations", spatial, 1);
  const auto outputPadding = perAxis(context, "output_padding", spatial, 0);
  const std::string padding = context.node.stringAttribute("auto_pad", "NOTSET");
  const auto pads = padding == "NOTSET" ? perAxis(context, "pads", 2 * spatial, 0)
                                        : std::vector<std::int64_t>(2 * spatial, 0);
  for (std::size_t axis = 0; axis < spatial; ++axis) {
    const __int128 extent = input.shape[2 + axis];
    const __int128 span = static_cast<__int128>(kernel[axis] - 1) * dilations[axis] + 1;
    const __int128 out = padding == "SAME_UPPER" || padding == "SAME_LOWER"
                             ? extent * strides[axis]
                             : strides[axis] * (extent - 1) + outputPadding[axis] + span -
                                   pads[axis] - pads[axis + spatial];
    if (out > INT64_MAX)
      context.fail("ConvTranspose's output would have more elements than fit in 64 bits");
    shape.push_back(static_cast<std::int64_t>(out));
    if (shape.back() < 1)
      context.fail("ConvTranspose's pads " + extentText(pads) + " leave no output on axis " +
                   std::to_string(axis + 2));
  }
  context.setOutput(0, input.dtype, shape);
}

// The number of spatial axes of a pooling node's data: all after N and C, or, in a blocked
// layout (graph::layoutAttributeBlock), all between them and the channels of a block.
std::size_t poolingSpatialAxes(ShapeContext& context) {
  const Shape& input = context.shape(0);
  const std::int64_t block = layoutAttributeBlock(context.node);
  if (block == 0 && context.node.attribute("layout"))
    context.fail(context.node.op + "'s layout must be NCHW<x>c");
  const std::size_t trailing = block == 0 ? 0 : 1;
  if (input.size() < 3 + trailing || (trailing == 1 && input.back() != block))
    context.fail(context.node.op + "'s input " + shapeText(input) + " is not " +
                 (trailing ? "[N, C/x, spatial..., x] with x = " + std::to_string(block)
                           : std::string("of rank 3 or more (N, C, spatial)")));
  return input.size() - 2 - trailing;
}

void pool(ShapeContext& context) {
  const Value& input = context.input(0);
  const std::size_t spatialAxes = poolingSpatialAxes(context);
  if (!context.node.attribute("kernel_shape"))
    context.fail(context.node.op + " needs attribute 'kernel_shape'");
  const auto kernel = context.node.intsAttribute("kernel_shape");
  if (kernel.size() != spatialAxes)
    context.fail("attribute kernel_shape " + extentText(kernel) + " should have " +
                 std::to_string(spatialAxes) + " entries, one per spatial axis");
  Shape shape{input.shape[0], input.shape[1]};
  const Shape spatial =
      windowedExtents(context, input.shape, kernel, context.node.intAttribute("ceil_mode", 0) != 0);
  shape.insert(shape.end(), spatial.begin(), spatial.end());
  shape.insert(shape.end(), input.shape.begin() + 2 + spatialAxes, input.shape.end());
  context.setOutput(0, input.dtype, shape);
  context.setOutput(1, DataType::Int64, shape); // MaxPool's indices
}

void globalPool(ShapeContext& context) {
  const Value& input = context.input(0);
  const std::size_t spatialAxes = poolingSpatialAxes(context);
  Shape shape = input.shape;
  std::fill(shape.begin() + 2, shape.begin() + 2 + spatialAxes, 1);
  context.setOutput(0, input.dtype, shape);
}

void gemm(ShapeContext& context) {
  const Value& a = context.input(0);
  const Value& b = context.input(1);
  if (a.shape.size() != 2 || b.shape.size() != 2)
    context.fail("Gemm's operands must be matrices, not " + shapeText(a.shape) + " and " +
                 shapeText(b.shape));
  const bool transA = context.node.intAttribute("transA", 0) != 0;
  const bool transB = context.node.intAttribute("transB", 0) != 0;
  const std::int64_t m = a.shape[transA ? 1 : 0], k = a.shape[transA ? 0 : 1];
  const std::int64_t kB = b.shape[transB ? 1 : 0], n = b.shape[transB ? 0 : 1];
  if (k != kB)
    context.fail("Gemm's inner extents differ: " + std::to_string(k) + " and " +
                 std::to_string(kB));
  if (context.has(2) && broadcastShapes(context, {Shape{m, n}, context.shape(2)}) != Shape{m, n})
    context.fail("Gemm's C " + shapeText(context.shape(2)) + " does not broadcast to " +
                 shapeText(Shape{m, n}));
  context.setOutput(0, a.dtype, {m, n});
}

// numpy.matmul: 1-D operands are promoted to a matrix and the added axis is dropped again;
// the batch axes broadcast.
void matMul(ShapeContext& context) {
  Shape a = context.shape(0), b = context.shape(1);
  if (a.empty() || b.empty())
    context.fail("MatMul of a scalar is not defined");
  const bool vectorA = a.size() == 1, vectorB = b.size() == 1;
  if (vectorA)
    a.insert(a.begin(), 1);
  if (vectorB)
    b.push_back(1);
  if (a.back() != b[b.size() - 2])
    context.fail("MatMul's inner extents differ: " + shapeText(context.shape(0)) + " times " +
                 shapeText(context.shape(1)));
  Shape shape =
      broadcastShapes(context, {Shape(a.begin(), a.end() - 2), Shape(b.begin(), b.end() - 2)});
  if (!vectorA)
    shape.push_back(a[a.size() - 2]);
  if (!vectorB)
    shape.push_back(b.back());
  context.setOutput(0, context.input(0).dtype, shape);
}

void einsum(ShapeContext& context) {
  std::vector<Shape> shapes;
  for (std::size_t i = 0; i < context.inputs.size(); ++i) {
    shapes.push_back(context.shape(i));
    if (context.input(i).dtype != context.input(0).dtype)
      context.fail("Einsum mixes element types");
  }
  EinsumEquation equation;
  try {
    equation = parseEinsum(context.node.stringAttribute("equation"), shapes);
  } catch (const Error& error) {
    context.fail(error.message());
  }
  Shape shape;
  for (int label : equation.outputLabels)
    shape.push_back(equation.extents.at(label));
  context.setOutput(0, context.input(0).dtype, shape);
}

void reduce(ShapeContext& context) {
  const Value& input = context.input(0);
  const std::size_t rank = input.shape.size();
  auto axes = context.axesOperand(1).value_or(std::vector<std::int64_t>{});
  const bool keepDims = context.node.intAttribute("keepdims", 1) != 0;
  if (axes.empty()) {
    if (context.node.intAttribute("noop_with_empty_axes", 0) != 0) {
      context.setOutput(0, input.dtype, input.shape);
      return;
    }
    axes.resize(rank);
    std::iota(axes.begin(), axes.end(), 0);
  }
  std::vector<bool> reduced(rank, false);
  for (std::int64_t axis : axes) {
    const std::int64_t positive = context.axis(axis, rank);
    if (reduced[positive])
      context.fail(context.node.op + " names axis " + std::to_string(positive) + " twice");
    reduced[positive] = true;
  }
  Shape shape;
  for (std::size_t k = 0; k < rank; ++k)
    if (!reduced[k])
      shape.push_back(input.shape[k]);
    else if (keepDims)
      shape.push_back(1);
  context.setOutput(0, input.dtype, shape);
}

void argReduce(ShapeContext& context) {
  const Value& input = context.input(0);
  const std::int64_t axis = context.axis(context.node.intAttribute("axis", 0), input.shape.size());
  Shape shape = input.shape;
  if (context.node.intAttribute("keepdims", 1) != 0)
    shape[axis] = 1;
  else
    shape.erase(shape.begin() + axis);
  context.setOutput(0, DataType::Int64, shape);
}

void softmax(ShapeContext& context) {
  const Value& input = context.input(0);
  context.axis(context.node.intAttribute("axis", -1), std::max<std::size_t>(input.shape.size(), 1));
  context.setOutput(0, input.dtype, input.shape);
}

// The optional mean and inverse standard deviation keep the normalised axes as ones.
void layerNormalization(ShapeContext& context) {
  const Value& input = context.input(0);
  const std::size_t rank = input.shape.size();
  const std::int64_t axis = context.axis(context.node.intAttribute("axis", -1), rank);
  for (std::size_t operand = 1; operand < 3; ++operand)
    if (context.has(operand) &&
        broadcastShapes(context, {input.shape, context.shape(operand)}) != input.shape)
      context.fail("LayerNormalization's " + std::string(operand == 1 ? "scale " : "bias ") +
                   shapeText(context.shape(operand)) + " does not broadcast to its input " +
                   shapeText(input.shape));
  context.setOutput(0, input.dtype, input.shape);
  Shape statistics = input.shape;
  std::fill(statistics.begin() + axis, statistics.end(), 1);
  const DataType stash =
      context.node.intAttribute("stash_type", 1) == 1 ? DataType::Float32 : input.dtype;
  context.setOutput(1, stash, statistics);
  context.setOutput(2, stash, statistics);
}

void instanceNormalization(ShapeContext& context) {
  const Value& input = context.input(0);
  if (input.shape.size() < 3)
    context.fail("InstanceNormalization's input must have rank 3 or more (N, C, spatial), not " +
                 std::to_string(input.shape.size()));
  for (std::size_t operand = 1; operand < 3; ++operand)
    if (context.shape(operand) != Shape{input.shape[1]})
      context.fail("InstanceNormalization's " + std::string(operand == 1 ? "scale" : "bias") +
                   " is " + shapeText(context.shape(operand)) + ", not " +
                   std::to_string(input.shape[1]) + " (one per channel)");
  context.setOutput(0, input.dtype, input.shape);
}

void batchNormalization(ShapeContext& context) {
  const Value& input = context.input(0);
  const std::int64_t block = layoutAttributeBlock(context.node);
  if (block == 0 && context.node.attribute("layout"))
    context.fail("BatchNormalization's layout must be NCHW<x>c");
  if (input.shape.size() < (block != 0 ? 3u : 2u) || (block != 0 && input.shape.back() != block))
    context.fail("BatchNormalization's input " + shapeText(input.shape) + " is not " +
                 (block != 0 ? "[N, C/x, ..., x] with x = " + std::to_string(block)
                             : std::string("of rank 2 or more")));
  const std::int64_t channels = input.shape[1] * (block != 0 ? block : 1);
  for (std::size_t operand = 1; operand < 5; ++operand)
    if (context.shape(operand) != Shape{channels})
      context.fail("BatchNormalization's operand " + std::to_string(operand + 1) + " is " +
                   shapeText(context.shape(operand)) + ", not " + std::to_string(channels) +
                   " (one per channel)");
  context.setOutput(0, input.dtype, input.shape);
  for (std::size_t output = 1; output < 5; ++output) // the training form's running statistics
    context.setOutput(output, input.dtype, {channels});
}

constexpr std::array kRules = {
    ShapeRuleInfo{"Conv", 2, 3, 1, 1, conv},
    ShapeRuleInfo{"ConvTranspose", 2, 3, 1, 1, convTranspose},
    ShapeRuleInfo{"ConvNCHWc", 2, 3, 1, 1, convNCHWc},
    ShapeRuleInfo{"DepthwiseConvNCHWc", 2, 3, 1, 1, depthwiseConvNCHWc},
    ShapeRuleInfo{"MaxPool", 1, 1, 1, 2, pool},
    ShapeRuleInfo{"AveragePool", 1, 1, 1, 1, pool},
    ShapeRuleInfo{"GlobalAveragePool", 1, 1, 1, 1, globalPool},
    ShapeRuleInfo{"GlobalMaxPool", 1, 1, 1, 1, globalPool},
    ShapeRuleInfo{"Gemm", 2, 3, 1, 1, gemm},
    ShapeRuleInfo{"MatMul", 2, 2, 1, 1, matMul},
    ShapeRuleInfo{"Einsum", 1, kVariadic, 1, 1, einsum},
    ShapeRuleInfo{"ReduceMean", 1, 2, 1, 1, reduce},
    ShapeRuleInfo{"ReduceSum", 1, 2, 1, 1, reduce},
    ShapeRuleInfo{"ReduceMax", 1, 2, 1, 1, reduce},
    ShapeRuleInfo{"ReduceMin", 1, 2, 1, 1, reduce},
    ShapeRuleInfo{"ReduceL1", 1, 2, 1, 1, reduce},
    ShapeRuleInfo{"ReduceL2", 1, 2, 1, 1, reduce},
    ShapeRuleInfo{"ReduceSumSquare", 1, 2, 1, 1, reduce},
    ShapeRuleInfo{"ReduceLogSum", 1, 2, 1, 1, reduce},
    ShapeRuleInfo{"ReduceLogSumExp", 1, 2, 1, 1, reduce},
    ShapeRuleInfo{"ReduceProd", 1, 2, 1, 1, reduce},
    ShapeRuleInfo{"ArgMax", 1, 1, 1, 1, argReduce},
    ShapeRuleInfo{"ArgMin", 1, 1, 1, 1, argReduce},
    ShapeRuleInfo{"Hardmax", 1, 1, 1, 1, softmax},
    ShapeRuleInfo{"Softmax", 1, 1, 1, 1, softmax},
    ShapeRuleInfo{"LogSoftmax", 1, 1, 1, 1, softmax},
    ShapeRuleInfo{"LayerNormalization", 1, 3, 1, 3, layerNormalization},
    ShapeRuleInfo{"BatchNormalization", 5, 5, 1, 5, batchNormalization},
    ShapeRuleInfo{"InstanceNormalization", 3, 3, 1, 1, instanceNormalization},
    ShapeRuleInfo{"LRN", 1, 1, 1, 1, sameAsInput},
    ShapeRuleInfo{"MeanVarianceNormalization", 1, 1, 1, 1, sameAsInput},
};

} // namespace

std::span<const ShapeRuleInfo> computeShapeRules() {
  return kRules;
}

} // namespace clustune::graph
