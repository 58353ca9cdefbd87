// Lowerings of ONNX MaxPool, AveragePool, GlobalMaxPool and GlobalAveragePool (1-D, 2-D and
// 3-D, NC + spatial layout) into compute stages, after TVM's topi pool*d. A windowed pool is an
// optional padding stage, then one Max or Sum reduction over the window; AveragePool then
// divides in a following element-wise stage, because a Reduce must be the top of its body.
//
// The divisor of AveragePool is an integer expression of the output position, not a stage: it
// counts the window taps that fall on the input (count_include_pad = 0) or on the explicitly
// padded input (count_include_pad = 1; taps of a ceil_mode window that overhang the end padding
// are not counted, as PyTorch's avg_pool does). Windows that lie wholly inside fold it to a
// constant, so the common case divides by the kernel size.
//
// In the blocked layout (graph::layoutAttributeBlock) the data is [N, C/x, spatial..., x]: the
// windows and reductions cover the spatial axes, and the channels of a block are one more axis
// copied through, the vector lanes of a schedule.
#include "support/Error.h"
#include "te/topi/Common.h"

#include <algorithm>
#include <limits>

namespace clustune::te::topi {
namespace {

// The data operand and how many axes follow its spatial ones (1 for the channels of a block).
struct PoolData {
  const Tensor& tensor;
  std::size_t spatialAxes, trailingAxes;
};

// The data operand, checked to be N, C and 1 to 3 spatial dimensions, then the channels of a
// block in the blocked layout.
PoolData poolData(const OperatorContext& context) {
  requireOperands(context, 1, 1);
  requireOutputs(context, 1);
  const Tensor& data = context.operand(0);
  const std::int64_t block = layoutAttributeBlock(context);
  const std::size_t trailing = block == 0 ? 0 : 1;
  const std::size_t rank = data->shape.size();
  if (rank < 3 + trailing || rank > 5 + trailing || (block != 0 && data->shape.back() != block))
    context.fail("expects data of rank " + std::to_string(3 + trailing) + " to " +
                 std::to_string(5 + trailing) + " (N, C and 1 to 3 spatial dimensions" +
                 (block != 0 ? ", then " + std::to_string(block) + " channels of a block" : "") +
                 "), got [" + graph::shapeToString(data->shape) + "]");
  return {data, rank - 2 - trailing, trailing};
}

// indices[first..] appended to `source`: the trailing axes, copied through.
void appendTrailing(std::vector<Expr>& source, const std::vector<Expr>& indices,
                    std::size_t first) {
  source.insert(source.end(), indices.begin() + static_cast<std::ptrdiff_t>(first), indices.end());
}

// A value no element of the dtype is below, so that padding never wins a max.
Expr lowestValue(DataType dtype) {
  switch (dtype) {
  case DataType::Int8:
    return intImm(std::numeric_limits<std::int8_t>::min(), dtype);
  case DataType::UInt8:
  case DataType::Bool:
    return intImm(0, dtype);
  case DataType::Int32:
    return intImm(std::numeric_limits<std::int32_t>::min(), dtype);
  default:
    return reducerIdentity(Reducer::Max, dtype);
  }
}

// The attributes and geometry of MaxPool and AveragePool, one entry per spatial axis.
struct PoolWindow {
  std::vector<std::int64_t> kernel, strides, dilations, padsBegin, padsEnd;
  // Extents of the padded input that the windows read: the input with its pads, plus whatever
  // a ceil_mode window overhangs beyond the end pad.
  std::vector<std::int64_t> paddedExtents;
  Shape resultShape;

  std::int64_t dilatedKernel(std::size_t axis) const {
    return (kernel[axis] - 1) * dilations[axis] + 1;
  }
};

PoolWindow readWindow(const OperatorContext& context, const PoolData& pool) {
  const Shape& data = pool.tensor->shape;
  const std::size_t spatial = pool.spatialAxes;
  PoolWindow window;
  window.kernel = intsOfSize(context, "kernel_shape", spatial);
  window.strides = intsOfSize(context, "strides", spatial);
  window.dilations = intsOfSize(context, "dilations", spatial);
  const auto pads = intsOfSize(context, "pads", 2 * spatial);
  window.padsBegin.assign(pads.begin(), pads.begin() + spatial);
  window.padsEnd.assign(pads.begin() + spatial, pads.end());
  const bool ceilMode = intAttribute(context, "ceil_mode") != 0;
  const Shape& recorded = outputShape(context);
  if (recorded.size() != data.size() || recorded[0] != data[0] || recorded[1] != data[1] ||
      !std::equal(data.end() - static_cast<std::ptrdiff_t>(pool.trailingAxes), data.end(),
                  recorded.end() - static_cast<std::ptrdiff_t>(pool.trailingAxes)))
    context.fail("the task records output [" + graph::shapeToString(recorded) + "] for input [" +
                 graph::shapeToString(data) + "]");
  window.resultShape = {data[0], data[1]};
  for (std::size_t axis = 0; axis < spatial; ++axis) {
    if (window.kernel[axis] < 1 || window.strides[axis] < 1 || window.dilations[axis] < 1)
      context.fail("kernel_shape, strides and dilations must be positive");
    if (window.padsBegin[axis] < 0 || window.padsEnd[axis] < 0)
      context.fail("pads must be non-negative");
    const std::int64_t padded = data[2 + axis] + window.padsBegin[axis] + window.padsEnd[axis];
    const std::int64_t span = padded - window.dilatedKernel(axis);
    if (span < 0)
      context.fail("the dilated kernel is larger than the padded input");
    const std::int64_t floorCount = span / window.strides[axis] + 1;
    const std::int64_t ceilCount = (span + window.strides[axis] - 1) / window.strides[axis] + 1;
    // ONNX versions disagree on whether ceil_mode keeps a last window that starts in the end
    // padding, so with ceil_mode either count is accepted and the recorded one is lowered.
    const std::int64_t outputs = recorded[2 + axis];
    if (outputs != floorCount && !(ceilMode && outputs == ceilCount))
      context.fail("the attributes give " + std::to_string(ceilMode ? ceilCount : floorCount) +
                   " outputs along spatial axis " + std::to_string(axis) + ", the task records " +
                   std::to_string(outputs));
    window.resultShape.push_back(outputs);
    window.paddedExtents.push_back(
        std::max(padded, (outputs - 1) * window.strides[axis] + window.dilatedKernel(axis)));
  }
  window.resultShape.insert(window.resultShape.end(),
                            recorded.end() - static_cast<std::ptrdiff_t>(pool.trailingAxes),
                            recorded.end());
  return window;
}

// One Max or Sum reduction over each output position's window of `padded`.
Tensor reduceWindows(const OperatorContext& context, const PoolWindow& window, const Tensor& padded,
                     Reducer reducer) {
  ReductionAxes axes;
  std::vector<Expr> taps;
  for (std::size_t axis = 0; axis < window.kernel.size(); ++axis)
    taps.push_back(axes.add(context.stageName + ".rk" + std::to_string(axis), window.kernel[axis]));
  return compute(context.stageName, window.resultShape, [&](const std::vector<Expr>& indices) {
    std::vector<Expr> source = {indices[0], indices[1]};
    for (std::size_t axis = 0; axis < window.kernel.size(); ++axis)
      source.push_back(indices[2 + axis] * intImm(window.strides[axis]) +
                       taps[axis] * intImm(window.dilations[axis]));
    appendTrailing(source, indices, 2 + window.kernel.size());
    return axes.combine(reducer, load(padded, source));
  });
}

std::vector<Tensor> lowerMaxPool(const OperatorContext& context) {
  if (context.node.outputShapes.size() > 1)
    throw Error("MaxPool indices output is not supported");
  const PoolData pool = poolData(context);
  const Tensor& data = pool.tensor;
  const PoolWindow window = readWindow(context, pool);
  const Tensor padded = spreadAndPad(context.stageName + ".pad", data, lowestValue(data->dtype),
                                     std::vector<std::int64_t>(window.kernel.size(), 1),
                                     window.padsBegin, window.paddedExtents, pool.trailingAxes);
  return {reduceWindows(context, window, padded, Reducer::Max)};
}

// The number of taps k in [0, kernel) with low <= start + k * dilation < high.
std::int64_t tapsInRange(std::int64_t start, std::int64_t kernel, std::int64_t dilation,
                         std::int64_t low, std::int64_t high) {
  std::int64_t taps = 0;
  for (std::int64_t k = 0; k < kernel; ++k)
    taps += start + k * dilation >= low && start + k * dilation < high;
  return taps;
}

// The same count as an integer expression of the window start: from the first tap at or after
// `low`, ceil((low - start) / dilation), to the last tap before `high`. `clampAtZero` is needed
// only where a window can miss the range entirely.
Expr tapsInRange(const Expr& start, std::int64_t kernel, std::int64_t dilation, std::int64_t low,
                 std::int64_t high, bool clampAtZero) {
  const Expr d = intImm(dilation);
  const Expr first = maximum(intImm(0), floorDiv(intImm(low + dilation - 1) - start, d));
  const Expr last = minimum(intImm(kernel - 1), floorDiv(intImm(high - 1) - start, d));
  const Expr taps = last - first + intImm(1);
  return clampAtZero ? maximum(taps, intImm(0)) : taps;
}

// The divisor of AveragePool at output `indices` (see the file comment): the product over the
// spatial axes of the taps that count. The windows of each axis are counted here first, so
// that the expression is only as general as they need: a constant where every window is full.
Expr windowDivisor(const PoolWindow& window, const Shape& data, bool countPads,
                   const std::vector<Expr>& indices) {
  Expr count = intImm(1);
  bool someWindowEmpty = false;
  for (std::size_t axis = 0; axis < window.kernel.size(); ++axis) {
    const std::int64_t kernel = window.kernel[axis], stride = window.strides[axis];
    const std::int64_t dilation = window.dilations[axis], padBegin = window.padsBegin[axis];
    const std::int64_t low = countPads ? -padBegin : 0;
    const std::int64_t high = countPads ? data[2 + axis] + window.padsEnd[axis] : data[2 + axis];
    std::int64_t fewest = kernel;
    for (std::int64_t output = 0; output < window.resultShape[2 + axis]; ++output)
      fewest =
          std::min(fewest, tapsInRange(output * stride - padBegin, kernel, dilation, low, high));
    if (fewest == kernel) {
      count = count * intImm(kernel);
      continue;
    }
    someWindowEmpty = someWindowEmpty || fewest == 0;
    const Expr start = indices[2 + axis] * intImm(stride) - intImm(padBegin);
    count = count * tapsInRange(start, kernel, dilation, low, high, fewest == 0);
  }
  // A window of padding only (possible with large pads) averages to 0 instead of 0/0.
  return someWindowEmpty ? maximum(count, intImm(1)) : count;
}

std::vector<Tensor> lowerAveragePool(const OperatorContext& context) {
  const PoolData pool = poolData(context);
  const Tensor& data = pool.tensor;
  if (!graph::isFloatingPoint(data->dtype))
    context.fail("expects floating-point data");
  const PoolWindow window = readWindow(context, pool);
  const bool countPads = intAttribute(context, "count_include_pad") != 0;
  const Tensor padded = spreadAndPad(context.stageName + ".pad", data, floatImm(0.0, data->dtype),
                                     std::vector<std::int64_t>(window.kernel.size(), 1),
                                     window.padsBegin, window.paddedExtents, pool.trailingAxes);
  const Tensor sums = reduceWindows(context, window, padded, Reducer::Sum);
  return {compute(
      context.stageName + ".mean", window.resultShape, [&](const std::vector<Expr>& indices) {
        return load(sums, indices) /
               cast(data->dtype, windowDivisor(window, data->shape, countPads, indices));
      })};
}

// Global pools reduce every spatial position of each (n, c) to one value.
Tensor reduceAllSpatial(const OperatorContext& context, const PoolData& pool, Reducer reducer) {
  const Shape& data = pool.tensor->shape;
  ReductionAxes axes;
  std::vector<Expr> positions;
  Shape resultShape = data;
  for (std::size_t axis = 0; axis < pool.spatialAxes; ++axis) {
    positions.push_back(axes.add(context.stageName + ".rk" + std::to_string(axis), data[2 + axis]));
    resultShape[2 + axis] = 1;
  }
  return compute(context.stageName, resultShape, [&](const std::vector<Expr>& indices) {
    std::vector<Expr> source = {indices[0], indices[1]};
    source.insert(source.end(), positions.begin(), positions.end());
    appendTrailing(source, indices, 2 + pool.spatialAxes);
    return axes.combine(reducer, load(pool.tensor, source));
  });
}

std::vector<Tensor> lowerGlobalMaxPool(const OperatorContext& context) {
  return {reduceAllSpatial(context, poolData(context), Reducer::Max)};
}

std::vector<Tensor> lowerGlobalAveragePool(const OperatorContext& context) {
  const PoolData pool = poolData(context);
  const Tensor& data = pool.tensor;
  if (!graph::isFloatingPoint(data->dtype))
    context.fail("expects floating-point data");
  const Tensor sums = reduceAllSpatial(context, pool, Reducer::Sum);
  std::int64_t positions = 1;
  for (std::size_t axis = 0; axis < pool.spatialAxes; ++axis)
    positions *= data->shape[2 + axis];
  return {compute(context.stageName + ".mean", sums->shape, [&](const std::vector<Expr>& indices) {
    return load(sums, indices) / floatImm(static_cast<double>(positions), data->dtype);
  })};
}

} // namespace

void registerPoolingOperators(OperatorRegistry& registry) {
  registry["MaxPool"] = lowerMaxPool;
  registry["AveragePool"] = lowerAveragePool;
  registry["GlobalMaxPool"] = lowerGlobalMaxPool;
  registry["GlobalAveragePool"] = lowerGlobalAveragePool;
}

} // namespace clustune::te::topi
