// Lowerings of the layout operators (Injective pattern kind): each output element is one input
// element (or a pad value), so every body is a load at an index computed from the output index.
// Reshape and its relatives re-index through the row-major flat offset; Concat picks its operand
// with a Select chain, which only evaluates the chosen load. Operators whose indices are data
// (Gather, Scatter, OneHot) are in Indexing.cpp, Resize in Resize.cpp.
#include "te/topi/Common.h"

#include <algorithm>
#include <iterator>

namespace clustune::te::topi {
namespace {

std::vector<std::int64_t> withoutUnitExtents(const Shape& shape) {
  std::vector<std::int64_t> extents;
  std::copy_if(shape.begin(), shape.end(), std::back_inserter(extents),
               [](std::int64_t extent) { return extent != 1; });
  return extents;
}

// The input index that output position `indices` of a row-major reshape reads. When the shapes
// differ only by unit dimensions (Squeeze, Unsqueeze, most Reshapes in models) the non-unit
// axes map one to one, which gives simpler index expressions than the flat offset.
std::vector<Expr> reshapeIndices(const std::vector<Expr>& indices, const Shape& outputShape,
                                 const Shape& inputShape) {
  if (withoutUnitExtents(outputShape) != withoutUnitExtents(inputShape))
    return unflattenIndex(flattenIndex(indices, outputShape), inputShape);
  std::vector<Expr> inputIndices;
  std::size_t outputAxis = 0;
  for (std::int64_t extent : inputShape) {
    if (extent == 1) {
      inputIndices.push_back(intImm(0));
      continue;
    }
    while (outputShape[outputAxis] == 1)
      ++outputAxis;
    inputIndices.push_back(indices[outputAxis++]);
  }
  return inputIndices;
}

// Reshape, Flatten, Squeeze and Unsqueeze: the task records the output shape, and all of them
// keep the row-major order of the elements.
std::vector<Tensor> lowerReshape(const OperatorContext& context) {
  requireOperands(context, 1, 1);
  requireOutputs(context, 1);
  const Tensor& x = context.operand(0);
  const Shape& shape = outputShape(context);
  if (graph::elementCount(shape) != graph::elementCount(x->shape))
    context.fail("cannot reshape " + graph::shapeToString(x->shape) + " to " +
                 graph::shapeToString(shape));
  return {compute(context.stageName, shape, [&](const std::vector<Expr>& indices) {
    return load(x, reshapeIndices(indices, shape, x->shape));
  })};
}

std::vector<Tensor> lowerTranspose(const OperatorContext& context) {
  requireOperands(context, 1, 1);
  requireOutputs(context, 1);
  const Tensor& x = context.operand(0);
  const std::vector<std::int64_t> permutation = intsAttribute(context, "perm");
  std::vector<std::int64_t> sorted = permutation;
  std::sort(sorted.begin(), sorted.end());
  bool valid = sorted.size() == x->shape.size();
  for (std::size_t axis = 0; valid && axis < sorted.size(); ++axis)
    valid = sorted[axis] == static_cast<std::int64_t>(axis);
  if (!valid)
    context.fail("perm is not a permutation of the " + std::to_string(x->shape.size()) + " axes");
  Shape shape;
  for (std::int64_t axis : permutation)
    shape.push_back(x->shape[axis]);
  return {compute(context.stageName, shape, [&](const std::vector<Expr>& indices) {
    std::vector<Expr> inputIndices(indices.size());
    for (std::size_t axis = 0; axis < permutation.size(); ++axis)
      inputIndices[permutation[axis]] = indices[axis];
    return load(x, inputIndices);
  })};
}

// Fails unless `operand` has the output's rank and dtype and the output's extents except on
// `axis`.
void requireSameExceptAxis(const OperatorContext& context, const Tensor& operand,
                           const Shape& shape, DataType dtype, std::size_t axis) {
  bool matches = operand->shape.size() == shape.size() && operand->dtype == dtype;
  for (std::size_t k = 0; matches && k < shape.size(); ++k)
    matches = k == axis || operand->shape[k] == shape[k];
  if (!matches)
    context.fail(std::string("operand ") + graph::dataTypeName(operand->dtype) + "[" +
                 graph::shapeToString(operand->shape) + "] does not fit output " +
                 graph::dataTypeName(dtype) + "[" + graph::shapeToString(shape) + "] along axis " +
                 std::to_string(axis));
}

std::vector<Tensor> lowerConcat(const OperatorContext& context) {
  requireOperands(context, 1, 1 << 16);
  requireOutputs(context, 1);
  const Shape& shape = outputShape(context);
  const auto axis = static_cast<std::size_t>(intAttribute(context, "axis"));
  if (axis >= shape.size())
    context.fail("axis " + std::to_string(axis) + " is out of range");
  std::vector<Tensor> pieces;        // operands with elements along the axis
  std::vector<std::int64_t> offsets; // where each piece starts along the axis
  std::int64_t extent = 0;
  for (const Tensor& operand : context.operands) {
    if (!operand)
      context.fail("operands cannot be omitted");
    requireSameExceptAxis(context, operand, shape, outputType(context), axis);
    if (operand->shape[axis] == 0)
      continue;
    pieces.push_back(operand);
    offsets.push_back(extent);
    extent += operand->shape[axis];
  }
  if (extent != shape[axis])
    context.fail("operands add up to " + std::to_string(extent) + " along axis " +
                 std::to_string(axis) + ", the output has " + std::to_string(shape[axis]));
  if (pieces.empty()) // an empty output: the body is never evaluated
    pieces.push_back(context.operand(0));
  return {compute(context.stageName, shape, [&](const std::vector<Expr>& indices) {
    auto pieceAt = [&](std::size_t piece) {
      std::vector<Expr> pieceIndices = indices;
      if (!offsets.empty())
        pieceIndices[axis] = indices[axis] - intImm(offsets[piece]);
      return load(pieces[piece], pieceIndices);
    };
    Expr value = pieceAt(pieces.size() - 1);
    for (std::size_t piece = pieces.size() - 1; piece-- > 0;)
      value = select(indices[axis] < intImm(offsets[piece + 1]), pieceAt(piece), value);
    return value;
  })};
}

// Elements a slice with this start, end (exclusive) and step takes.
std::int64_t sliceExtent(std::int64_t start, std::int64_t end, std::int64_t step) {
  const std::int64_t distance = step > 0 ? end - start : start - end;
  const std::int64_t stride = step > 0 ? step : -step;
  return distance <= 0 ? 0 : (distance + stride - 1) / stride;
}

// Slice's starts/ends/axes/steps are normalised: axes non-negative, starts and ends clamped to
// the input (ends may be -1 with a negative step: "through index 0").
std::vector<Tensor> lowerSlice(const OperatorContext& context) {
  requireOperands(context, 1, 1);
  requireOutputs(context, 1);
  const Tensor& x = context.operand(0);
  const auto starts = intsAttribute(context, "starts");
  const auto ends = intsAttribute(context, "ends");
  const auto axes = intsAttribute(context, "axes");
  const auto steps = intsAttribute(context, "steps");
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    context.fail("starts, ends, axes and steps must have one entry per sliced axis");
  const std::size_t rank = x->shape.size();
  std::vector<std::int64_t> first(rank, 0), step(rank, 1);
  Shape shape = x->shape;
  for (std::size_t k = 0; k < axes.size(); ++k) {
    const std::int64_t axis = axes[k];
    if (axis < 0 || axis >= static_cast<std::int64_t>(rank) || steps[k] == 0)
      context.fail("axis " + std::to_string(axis) + " with step " + std::to_string(steps[k]) +
                   " is invalid for rank " + std::to_string(rank));
    first[axis] = starts[k];
    step[axis] = steps[k];
    shape[axis] = sliceExtent(starts[k], ends[k], steps[k]);
  }
  return {compute(context.stageName, shape, [&](const std::vector<Expr>& indices) {
    std::vector<Expr> inputIndices;
    for (std::size_t axis = 0; axis < rank; ++axis)
      inputIndices.push_back(intImm(first[axis]) + indices[axis] * intImm(step[axis]));
    return load(x, inputIndices);
  })};
}

// One output per piece; the task records each piece's shape, whether the model gave "split"
// sizes or asked for equal parts.
std::vector<Tensor> lowerSplit(const OperatorContext& context) {
  requireOperands(context, 1, 1);
  const Tensor& x = context.operand(0);
  const auto axis = static_cast<std::size_t>(intAttribute(context, "axis"));
  if (axis >= x->shape.size())
    context.fail("axis " + std::to_string(axis) + " is out of range");
  const std::size_t pieces = context.node.outputShapes.size();
  std::vector<std::int64_t> sizes;
  for (std::size_t piece = 0; piece < pieces; ++piece) {
    if (outputShape(context, piece).size() != x->shape.size())
      context.fail("output " + std::to_string(piece) + " does not have the input's rank");
    sizes.push_back(outputShape(context, piece)[axis]);
  }
  if (hasAttribute(context, "split") && intsAttribute(context, "split") != sizes)
    context.fail("split sizes disagree with the output shapes the task records");
  std::vector<Tensor> outputs;
  std::int64_t offset = 0;
  for (std::size_t piece = 0; piece < pieces; ++piece) {
    Shape shape = x->shape;
    shape[axis] = sizes[piece];
    outputs.push_back(compute(context.stageName + ".out" + std::to_string(piece), shape,
                              [&](const std::vector<Expr>& indices) {
                                std::vector<Expr> inputIndices = indices;
                                inputIndices[axis] = indices[axis] + intImm(offset);
                                return load(x, inputIndices);
                              }));
    offset += sizes[piece];
  }
  if (offset != x->shape[axis])
    context.fail("the pieces add up to " + std::to_string(offset) + " along axis " +
                 std::to_string(axis) + ", the input has " + std::to_string(x->shape[axis]));
  return outputs;
}

// The task records Expand's final shape, so it is plain broadcasting.
std::vector<Tensor> lowerExpand(const OperatorContext& context) {
  requireOperands(context, 1, 1);
  requireOutputs(context, 1);
  const Tensor& x = context.operand(0);
  const Shape& shape = outputShape(context);
  requireBroadcastable(context, x->shape, shape);
  return {compute(context.stageName, shape, [&](const std::vector<Expr>& indices) {
    return load(x, broadcastIndices(x->shape, indices));
  })};
}

// pads = [begin of each axis..., end of each axis...]; a negative pad crops.
std::vector<Tensor> lowerPad(const OperatorContext& context) {
  requireOperands(context, 1, 1);
  requireOutputs(context, 1);
  const Tensor& x = context.operand(0);
  const std::size_t rank = x->shape.size();
  const std::string mode = stringAttribute(context, "mode", "constant");
  const auto pads = intsAttribute(context, "pads");
  if (pads.size() != 2 * rank)
    context.fail("pads needs " + std::to_string(2 * rank) + " entries, given " +
                 std::to_string(pads.size()));
  if (mode != "constant" && mode != "edge" && mode != "reflect")
    context.fail("mode '" + mode + "' is not supported");
  Shape shape;
  for (std::size_t axis = 0; axis < rank; ++axis) {
    const std::int64_t begin = pads[axis], end = pads[rank + axis], extent = x->shape[axis];
    shape.push_back(extent + begin + end);
    if (shape.back() < 0 || (mode != "constant" && (begin > 0 || end > 0) && extent == 0))
      context.fail("pads " + std::to_string(begin) + ", " + std::to_string(end) +
                   " do not fit extent " + std::to_string(extent));
    if (mode == "reflect" && (begin >= extent || end >= extent))
      context.fail("reflect pads must be smaller than the extent " + std::to_string(extent));
  }
  const double value = floatAttribute(context, "value", 0.0);
  return {compute(context.stageName, shape, [&](const std::vector<Expr>& indices) {
    std::vector<Expr> inputIndices;
    Expr inside; // constant mode: whether the position reads the input
    for (std::size_t axis = 0; axis < rank; ++axis) {
      const std::int64_t begin = pads[axis], end = pads[rank + axis], extent = x->shape[axis];
      const Expr index = indices[axis] - intImm(begin);
      std::vector<Expr> conditions;
      if (begin > 0)
        conditions.push_back(index >= intImm(0));
      if (end > 0)
        conditions.push_back(index < intImm(extent));
      if (mode == "constant") {
        for (const Expr& condition : conditions)
          inside = inside ? inside && condition : condition;
        inputIndices.push_back(index);
      } else if (conditions.empty()) {
        inputIndices.push_back(index);
      } else if (mode == "edge") {
        inputIndices.push_back(minimum(maximum(index, intImm(0)), intImm(extent - 1)));
      } else { // reflect about the first and the last element
        inputIndices.push_back(
            select(index < intImm(0), intImm(0) - index,
                   select(index >= intImm(extent), intImm(2 * (extent - 1)) - index, index)));
      }
    }
    const Expr element = load(x, inputIndices);
    return inside ? select(inside, element, typedConstant(value, x->dtype)) : element;
  })};
}

std::vector<Tensor> lowerTile(const OperatorContext& context) {
  requireOperands(context, 1, 1);
  requireOutputs(context, 1);
  const Tensor& x = context.operand(0);
  const auto repeats = intsAttribute(context, "repeats");
  if (repeats.size() != x->shape.size())
    context.fail("repeats needs " + std::to_string(x->shape.size()) + " entries, given " +
                 std::to_string(repeats.size()));
  Shape shape;
  for (std::size_t axis = 0; axis < repeats.size(); ++axis) {
    if (repeats[axis] < 0)
      context.fail("repeats must not be negative");
    shape.push_back(x->shape[axis] * repeats[axis]);
  }
  return {compute(context.stageName, shape, [&](const std::vector<Expr>& indices) {
    std::vector<Expr> inputIndices;
    for (std::size_t axis = 0; axis < repeats.size(); ++axis)
      inputIndices.push_back(repeats[axis] == 1 ? indices[axis]
                                                : floorMod(indices[axis], intImm(x->shape[axis])));
    return load(x, inputIndices);
  })};
}

// ReverseSequence: along time_axis, the first sequence_lens[b] elements of each batch entry b
// reversed, the rest copied; a length is clamped to the time extent.
std::vector<Tensor> lowerReverseSequence(const OperatorContext& context) {
  requireOperands(context, 2, 2);
  requireOutputs(context, 1);
  const Tensor& x = context.operand(0);
  const Tensor& lengths = context.operand(1);
  const auto batchAxis = static_cast<std::size_t>(intAttribute(context, "batch_axis", 1));
  const auto timeAxis = static_cast<std::size_t>(intAttribute(context, "time_axis", 0));
  if (x->shape.size() < 2 || batchAxis > 1 || timeAxis > 1 || batchAxis == timeAxis)
    context.fail("batch_axis and time_axis must be 0 and 1 of an input of rank 2 or more");
  if (lengths->shape != Shape{x->shape[batchAxis]} ||
      (lengths->dtype != DataType::Int64 && lengths->dtype != DataType::Int32))
    context.fail("sequence_lens must be int64[" + std::to_string(x->shape[batchAxis]) + "]");
  const std::int64_t steps = x->shape[timeAxis];
  return {compute(context.stageName, x->shape, [&](const std::vector<Expr>& indices) {
    const Expr length =
        minimum(maximum(cast(DataType::Int64, load(lengths, {indices[batchAxis]})), intImm(0)),
                intImm(steps));
    const Expr t = indices[timeAxis];
    std::vector<Expr> reversed = indices;
    reversed[timeAxis] = minimum(maximum(length - intImm(1) - t, intImm(0)), intImm(steps - 1));
    return select(t < length, load(x, reversed), load(x, indices));
  })};
}

// Trilu keeps the upper (j - i >= k) or lower (j - i <= k) triangle of the last two axes and
// zeroes the rest.
std::vector<Tensor> lowerTrilu(const OperatorContext& context) {
  requireOperands(context, 1, 1);
  requireOutputs(context, 1);
  const Tensor& x = context.operand(0);
  const std::size_t rank = x->shape.size();
  if (rank < 2)
    context.fail("needs at least two dimensions");
  const bool upper = intAttribute(context, "upper", 1) != 0;
  const std::int64_t k = intAttribute(context, "k", 0);
  return {compute(context.stageName, x->shape, [&](const std::vector<Expr>& indices) {
    const Expr offset = indices[rank - 1] - indices[rank - 2];
    const Expr keep = upper ? offset >= intImm(k) : offset <= intImm(k);
    return select(keep, load(x, indices), typedConstant(0, x->dtype));
  })};
}

std::int64_t blockSize(const OperatorContext& context, const Tensor& x) {
  if (x->shape.size() != 4)
    context.fail("needs a 4-D (N, C, H, W) input");
  const std::int64_t block = intAttribute(context, "blocksize");
  if (block <= 0)
    context.fail("blocksize must be positive");
  return block;
}

// DepthToSpace: (N, C, H, W) to (N, C / b^2, H * b, W * b). DCR takes the block offset from the
// high channel bits (depth, column, row), CRD from the low ones.
std::vector<Tensor> lowerDepthToSpace(const OperatorContext& context) {
  requireOperands(context, 1, 1);
  requireOutputs(context, 1);
  const Tensor& x = context.operand(0);
  const std::int64_t block = blockSize(context, x);
  const std::string mode = stringAttribute(context, "mode", "DCR");
  if (mode != "DCR" && mode != "CRD")
    context.fail("mode '" + mode + "' is not DCR or CRD");
  const Shape& in = x->shape;
  if (in[1] % (block * block) != 0)
    context.fail("channels " + std::to_string(in[1]) + " are not a multiple of blocksize^2");
  const std::int64_t channels = in[1] / (block * block);
  const Shape shape{in[0], channels, in[2] * block, in[3] * block};
  return {compute(context.stageName, shape, [&](const std::vector<Expr>& indices) {
    const Expr b = intImm(block);
    const Expr row = floorMod(indices[2], b), column = floorMod(indices[3], b);
    const Expr channel = mode == "DCR" ? (row * b + column) * intImm(channels) + indices[1]
                                       : indices[1] * intImm(block * block) + row * b + column;
    return load(x, {indices[0], channel, floorDiv(indices[2], b), floorDiv(indices[3], b)});
  })};
}

// SpaceToDepth: (N, C, H, W) to (N, C * b^2, H / b, W / b), the inverse of DepthToSpace's DCR.
std::vector<Tensor> lowerSpaceToDepth(const OperatorContext& context) {
  requireOperands(context, 1, 1);
  requireOutputs(context, 1);
  const Tensor& x = context.operand(0);
  const std::int64_t block = blockSize(context, x);
  const Shape& in = x->shape;
  if (in[2] % block != 0 || in[3] % block != 0)
    context.fail("height and width must be multiples of blocksize " + std::to_string(block));
  const std::int64_t channels = in[1];
  const Shape shape{in[0], channels * block * block, in[2] / block, in[3] / block};
  return {compute(context.stageName, shape, [&](const std::vector<Expr>& indices) {
    const Expr b = intImm(block);
    const Expr offset = floorDiv(indices[1], intImm(channels)); // row * b + column
    return load(x, {indices[0], floorMod(indices[1], intImm(channels)),
                    indices[2] * b + floorDiv(offset, b), indices[3] * b + floorMod(offset, b)});
  })};
}

} // namespace

void registerLayoutOperators(OperatorRegistry& registry) {
  registry["Reshape"] = lowerReshape;
  registry["Flatten"] = lowerReshape;
  registry["Squeeze"] = lowerReshape;
  registry["Unsqueeze"] = lowerReshape;
  registry["Transpose"] = lowerTranspose;
  registry["Concat"] = lowerConcat;
  registry["Slice"] = lowerSlice;
  registry["Split"] = lowerSplit;
  registry["Expand"] = lowerExpand;
  registry["Pad"] = lowerPad;
  registry["Tile"] = lowerTile;
  registry["Trilu"] = lowerTrilu;
  registry["DepthToSpace"] = lowerDepthToSpace;
  registry["SpaceToDepth"] = lowerSpaceToDepth;
  registry["ReverseSequence"] = lowerReverseSequence;
}

} // namespace clustune::te::topi