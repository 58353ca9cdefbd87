// Lowerings of the layout and indexing operators (Injective pattern kind): each output element
// is one input element (or a pad value), so every body is a load at an index computed from the
// output index. Reshape and its relatives re-index through the row-major flat offset; Concat
// picks its operand with a Select chain, which only evaluates the chosen load.
#include "te/topi/Common.h"

#include <algorithm>
#include <iterator>
#include <set>

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

// Indices are data, so a kernel must stay inside the tensor whatever it is fed: a negative index
// counts from the end (as ONNX says), and one still out of range (undefined in ONNX) is clamped.
std::vector<Tensor> lowerGather(const OperatorContext& context) {
  requireOperands(context, 2, 2);
  requireOutputs(context, 1);
  const Tensor& data = context.operand(0);
  const Tensor& indicesTensor = context.operand(1);
  if (indicesTensor->dtype != DataType::Int64 && indicesTensor->dtype != DataType::Int32)
    context.fail("indices must be int32 or int64");
  const auto axis = static_cast<std::size_t>(intAttribute(context, "axis"));
  if (axis >= data->shape.size())
    context.fail("axis " + std::to_string(axis) + " is out of range");
  const std::int64_t extent = data->shape[axis];
  const std::size_t indexRank = indicesTensor->shape.size();
  Shape shape(data->shape.begin(), data->shape.begin() + static_cast<std::ptrdiff_t>(axis));
  shape.insert(shape.end(), indicesTensor->shape.begin(), indicesTensor->shape.end());
  shape.insert(shape.end(), data->shape.begin() + static_cast<std::ptrdiff_t>(axis) + 1,
               data->shape.end());
  const std::optional<double> constantIndex = constantOperandValue(context, 1);
  if (constantIndex) {
    const auto index = static_cast<std::int64_t>(*constantIndex);
    if (index < -extent || index >= extent)
      context.fail("index " + std::to_string(index) + " is out of range for extent " +
                   std::to_string(extent));
  }
  return {compute(context.stageName, shape, [&](const std::vector<Expr>& indices) {
    Expr position;
    if (constantIndex) {
      const auto index = static_cast<std::int64_t>(*constantIndex);
      position = intImm(index < 0 ? index + extent : index);
    } else {
      const std::vector<Expr> indexIndices(indices.begin() + static_cast<std::ptrdiff_t>(axis),
                                           indices.begin() +
                                               static_cast<std::ptrdiff_t>(axis + indexRank));
      const Expr index = cast(DataType::Int64, load(indicesTensor, indexIndices));
      const Expr wrapped = select(index < intImm(0), index + intImm(extent), index);
      position = minimum(maximum(wrapped, intImm(0)), intImm(extent - 1));
    }
    std::vector<Expr> dataIndices(indices.begin(),
                                  indices.begin() + static_cast<std::ptrdiff_t>(axis));
    dataIndices.push_back(position);
    dataIndices.insert(dataIndices.end(),
                       indices.begin() + static_cast<std::ptrdiff_t>(axis + indexRank),
                       indices.end());
    return load(data, dataIndices);
  })};
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

// An index read from data, made safe as Gather's: negative counts from the end, and one still
// out of range (undefined in ONNX) is clamped into [0, extent).
Expr wrappedIndex(const Expr& loaded, std::int64_t extent) {
  const Expr index = cast(DataType::Int64, loaded);
  const Expr wrapped = select(index < intImm(0), index + intImm(extent), index);
  return minimum(maximum(wrapped, intImm(0)), intImm(extent - 1));
}

// The `axis` of GatherElements and ScatterElements, after checking that their indices are
// int32 or int64 of the data's rank and no longer than the data off that axis.
std::size_t elementIndicesAxis(const OperatorContext& context, const Tensor& data,
                               const Tensor& indicesTensor) {
  if (indicesTensor->dtype != DataType::Int64 && indicesTensor->dtype != DataType::Int32)
    context.fail("indices must be int32 or int64");
  const std::size_t rank = data->shape.size();
  const auto axis = static_cast<std::size_t>(intAttribute(context, "axis", 0));
  if (axis >= rank)
    context.fail("axis " + std::to_string(axis) + " is out of range");
  if (indicesTensor->shape.size() != rank)
    context.fail("indices must have the data's rank " + std::to_string(rank));
  for (std::size_t k = 0; k < rank; ++k)
    if (k != axis && indicesTensor->shape[k] > data->shape[k])
      context.fail("indices " + graph::shapeToString(indicesTensor->shape) + " exceed the data " +
                   graph::shapeToString(data->shape) + " off the axis");
  return axis;
}

// GatherElements: the output has the indices' shape; out[i...] = data[i...] with the index on
// `axis` replaced by indices[i...].
std::vector<Tensor> lowerGatherElements(const OperatorContext& context) {
  requireOperands(context, 2, 2);
  requireOutputs(context, 1);
  const Tensor& data = context.operand(0);
  const Tensor& indicesTensor = context.operand(1);
  const std::size_t axis = elementIndicesAxis(context, data, indicesTensor);
  const std::int64_t extent = data->shape[axis];
  return {compute(context.stageName, indicesTensor->shape, [&](const std::vector<Expr>& indices) {
    std::vector<Expr> dataIndices = indices;
    dataIndices[axis] = wrappedIndex(load(indicesTensor, indices), extent);
    return load(data, dataIndices);
  })};
}

// GatherND: the last axis of indices (k long) addresses data after the first batch_dims axes,
// which indices and data share; out[i..., rest...] = data[batch..., indices[i..., :], rest...].
std::vector<Tensor> lowerGatherND(const OperatorContext& context) {
  requireOperands(context, 2, 2);
  requireOutputs(context, 1);
  const Tensor& data = context.operand(0);
  const Tensor& indicesTensor = context.operand(1);
  if (indicesTensor->dtype != DataType::Int64)
    context.fail("indices must be int64");
  const std::size_t rank = data->shape.size(), indexRank = indicesTensor->shape.size();
  const auto batch = static_cast<std::size_t>(intAttribute(context, "batch_dims", 0));
  if (indexRank < 1 || batch >= indexRank || batch >= rank)
    context.fail("batch_dims " + std::to_string(batch) + " does not fit the operands' ranks");
  const auto depth = static_cast<std::size_t>(indicesTensor->shape.back());
  if (depth < 1 || batch + depth > rank)
    context.fail("indices address " + std::to_string(depth) + " axes after " +
                 std::to_string(batch) + " batch axes of a rank-" + std::to_string(rank) +
                 " input");
  for (std::size_t axis = 0; axis < batch; ++axis)
    if (indicesTensor->shape[axis] != data->shape[axis])
      context.fail("the batch axes of data and indices differ");
  Shape shape(indicesTensor->shape.begin(), indicesTensor->shape.end() - 1);
  shape.insert(shape.end(), data->shape.begin() + static_cast<std::ptrdiff_t>(batch + depth),
               data->shape.end());
  if (shape != outputShape(context))
    context.fail("the operands give output shape " + graph::shapeToString(shape) +
                 ", the task records " + graph::shapeToString(outputShape(context)));
  return {compute(context.stageName, shape, [&](const std::vector<Expr>& indices) {
    std::vector<Expr> dataIndices(indices.begin(),
                                  indices.begin() + static_cast<std::ptrdiff_t>(batch));
    std::vector<Expr> indexIndices(indices.begin(),
                                   indices.begin() + static_cast<std::ptrdiff_t>(indexRank - 1));
    indexIndices.push_back(nullptr);
    for (std::size_t j = 0; j < depth; ++j) {
      indexIndices.back() = intImm(static_cast<std::int64_t>(j));
      dataIndices.push_back(
          wrappedIndex(load(indicesTensor, indexIndices), data->shape[batch + j]));
    }
    dataIndices.insert(dataIndices.end(),
                       indices.begin() + static_cast<std::ptrdiff_t>(indexRank - 1), indices.end());
    return load(data, dataIndices);
  })};
}

// ScatterElements: a copy of data where updates[j] lands at j with its `axis` coordinate
// replaced by indices[j]. The updates that can land on an output position are those sharing its
// other coordinates, one per index along the axis: with reduction "add" or "mul" they are summed
// or multiplied in; with "none" the last of them wins (ONNX leaves duplicates undefined).
std::vector<Tensor> lowerScatterElements(const OperatorContext& context) {
  requireOperands(context, 3, 3);
  requireOutputs(context, 1);
  const Tensor& data = context.operand(0);
  const Tensor& indicesTensor = context.operand(1);
  const Tensor& updates = context.operand(2);
  if (updates->dtype != data->dtype || updates->shape != indicesTensor->shape)
    context.fail("updates must have the data's dtype and the indices' shape");
  const std::size_t rank = data->shape.size();
  const std::size_t axis = elementIndicesAxis(context, data, indicesTensor);
  const std::string reduction = stringAttribute(context, "reduction", "none");
  if (reduction != "none" && reduction != "add" && reduction != "mul")
    context.fail("reduction '" + reduction + "' is not supported (none, add and mul are)");
  const std::int64_t extent = data->shape[axis];
  // The update position for output position `indices` and index `r` along the axis, whether it
  // exists, and whether it lands there.
  struct Source {
    std::vector<Expr> position;
    Expr lands;
  };
  auto source = [&](const std::vector<Expr>& indices, const Expr& r) {
    Source result{indices, nullptr};
    Expr inside;
    for (std::size_t k = 0; k < rank; ++k) {
      if (k == axis) {
        result.position[k] = r;
        continue;
      }
      if (indicesTensor->shape[k] == data->shape[k])
        continue;
      const Expr within = indices[k] < intImm(indicesTensor->shape[k]);
      inside = inside ? inside && within : within;
      result.position[k] = minimum(indices[k], intImm(indicesTensor->shape[k] - 1));
    }
    const Expr target = cast(DataType::Int64, load(indicesTensor, result.position));
    const Expr wrapped = select(target < intImm(0), target + intImm(extent), target);
    result.lands = wrapped == indices[axis];
    if (inside)
      result.lands = inside && result.lands;
    return result;
  };
  const IterVar along{makeVar(context.stageName + ".r0"), indicesTensor->shape[axis]};
  if (reduction != "none") {
    const bool add = reduction == "add";
    const Tensor combined = compute(context.stageName + (add ? ".sum" : ".prod"), data->shape,
                                    [&](const std::vector<Expr>& indices) {
                                      const Source from = source(indices, varExpr(along.var));
                                      return reduce(add ? Reducer::Sum : Reducer::Prod,
                                                    select(from.lands, load(updates, from.position),
                                                           typedConstant(add ? 0 : 1, data->dtype)),
                                                    {along});
                                    });
    return {compute(context.stageName, data->shape, [&](const std::vector<Expr>& indices) {
      return add ? load(data, indices) + load(combined, indices)
                 : load(data, indices) * load(combined, indices);
    })};
  }
  const Tensor last =
      compute(context.stageName + ".last", data->shape, [&](const std::vector<Expr>& indices) {
        const Expr r = varExpr(along.var);
        return reduce(Reducer::Max, select(source(indices, r).lands, r, intImm(-1)), {along});
      });
  return {compute(context.stageName, data->shape, [&](const std::vector<Expr>& indices) {
    const Expr r = load(last, indices);
    const Source from =
        source(indices, minimum(maximum(r, intImm(0)), intImm(indicesTensor->shape[axis] - 1)));
    return select(r >= intImm(0), load(updates, from.position), load(data, indices));
  })};
}

// ScatterND: a copy of data where updates[j, rest...] lands at data[indices[j, :], rest...]. For
// each output position, the index tuples j that address it are found by a reduction over all of
// them: summed or multiplied in (reduction add/mul), or the last in row-major order (none; ONNX
// leaves duplicates undefined).
std::vector<Tensor> lowerScatterND(const OperatorContext& context) {
  requireOperands(context, 3, 3);
  requireOutputs(context, 1);
  const Tensor& data = context.operand(0);
  const Tensor& indicesTensor = context.operand(1);
  const Tensor& updates = context.operand(2);
  if (indicesTensor->dtype != DataType::Int64)
    context.fail("indices must be int64");
  const std::size_t rank = data->shape.size(), indexRank = indicesTensor->shape.size();
  if (indexRank < 1)
    context.fail("indices must have at least one axis");
  const auto depth = static_cast<std::size_t>(indicesTensor->shape.back());
  if (depth < 1 || depth > rank)
    context.fail("indices address " + std::to_string(depth) + " axes of a rank-" +
                 std::to_string(rank) + " input");
  const Shape tuples(indicesTensor->shape.begin(), indicesTensor->shape.end() - 1);
  Shape updateShape = tuples;
  updateShape.insert(updateShape.end(), data->shape.begin() + static_cast<std::ptrdiff_t>(depth),
                     data->shape.end());
  if (updates->shape != updateShape || updates->dtype != data->dtype)
    context.fail("updates must be " + std::string(graph::dataTypeName(data->dtype)) + "[" +
                 graph::shapeToString(updateShape) + "]");
  const std::string reduction = stringAttribute(context, "reduction", "none");
  if (reduction != "none" && reduction != "add" && reduction != "mul")
    context.fail("reduction '" + reduction + "' is not supported (none, add and mul are)");
  // Whether index tuple `tuple` addresses output position `indices`.
  auto addresses = [&](const std::vector<Expr>& tuple, const std::vector<Expr>& indices) {
    std::vector<Expr> indexIndices = tuple;
    indexIndices.push_back(nullptr);
    Expr match;
    for (std::size_t m = 0; m < depth; ++m) {
      indexIndices.back() = intImm(static_cast<std::int64_t>(m));
      const Expr target = load(indicesTensor, indexIndices);
      const Expr wrapped =
          select(target < intImm(0), target + intImm(data->shape[m]), target) == indices[m];
      match = match ? match && wrapped : wrapped;
    }
    return match;
  };
  auto updateAt = [&](const std::vector<Expr>& tuple, const std::vector<Expr>& indices) {
    std::vector<Expr> updateIndices = tuple;
    updateIndices.insert(updateIndices.end(), indices.begin() + static_cast<std::ptrdiff_t>(depth),
                         indices.end());
    return load(updates, updateIndices);
  };
  if (reduction != "none") {
    const bool add = reduction == "add";
    const std::string name = context.stageName + (add ? ".sum" : ".prod");
    const Tensor combined = compute(name, data->shape, [&](const std::vector<Expr>& indices) {
      ReductionAxes axes;
      std::vector<Expr> tuple;
      for (std::size_t axis = 0; axis < tuples.size(); ++axis)
        tuple.push_back(axes.add(name + ".r" + std::to_string(axis), tuples[axis]));
      return axes.combine(add ? Reducer::Sum : Reducer::Prod,
                          select(addresses(tuple, indices), updateAt(tuple, indices),
                                 typedConstant(add ? 0 : 1, data->dtype)));
    });
    return {compute(context.stageName, data->shape, [&](const std::vector<Expr>& indices) {
      return add ? load(data, indices) + load(combined, indices)
                 : load(data, indices) * load(combined, indices);
    })};
  }
  const std::string lastName = context.stageName + ".last";
  const Tensor last = compute(lastName, data->shape, [&](const std::vector<Expr>& indices) {
    ReductionAxes axes;
    std::vector<Expr> tuple;
    for (std::size_t axis = 0; axis < tuples.size(); ++axis)
      tuple.push_back(axes.add(lastName + ".r" + std::to_string(axis), tuples[axis]));
    return axes.combine(Reducer::Max,
                        select(addresses(tuple, indices), flattenIndex(tuple, tuples), intImm(-1)));
  });
  const std::int64_t count = graph::elementCount(tuples);
  return {compute(context.stageName, data->shape, [&](const std::vector<Expr>& indices) {
    const Expr position = load(last, indices);
    const std::vector<Expr> tuple =
        unflattenIndex(minimum(maximum(position, intImm(0)), intImm(count - 1)), tuples);
    return select(position >= intImm(0), updateAt(tuple, indices), load(data, indices));
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

// OneHot: depth is an attribute (a constant input moved there); values = [off, on]. The output
// has the indices' shape with a depth-long axis inserted at `axis`. Negative indices count from
// the end; ones still out of range give an all-off row, as ONNX says.
std::vector<Tensor> lowerOneHot(const OperatorContext& context) {
  requireOperands(context, 2, 2);
  requireOutputs(context, 1);
  const Tensor& indicesTensor = context.operand(0);
  const Tensor& values = context.operand(1);
  if (graph::elementCount(values->shape) != 2 || values->shape.size() != 1)
    context.fail("values must be a 2-element vector [off, on]");
  const std::int64_t depth = intAttribute(context, "depth");
  if (depth <= 0)
    context.fail("depth must be positive");
  const std::size_t outputRank = indicesTensor->shape.size() + 1;
  const auto axis = static_cast<std::size_t>(intAttribute(context, "axis"));
  if (axis >= outputRank)
    context.fail("axis " + std::to_string(axis) + " is out of range");
  Shape shape = indicesTensor->shape;
  shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(axis), depth);
  return {compute(context.stageName, shape, [&](const std::vector<Expr>& indices) {
    std::vector<Expr> indexIndices = indices;
    indexIndices.erase(indexIndices.begin() + static_cast<std::ptrdiff_t>(axis));
    // Non-integer indices are cast to int64 (truncated), as ONNX says.
    const Expr index = cast(DataType::Int64, load(indicesTensor, indexIndices));
    const Expr wrapped = select(index < intImm(0), index + intImm(depth), index);
    return select(wrapped == indices[axis], load(values, {intImm(1)}), load(values, {intImm(0)}));
  })};
}

// Resize (opset 11 and later), nearest, linear and cubic modes. Simplification records the per-axis
// scales (given, or output / input extents when sizes were given) and, for
// tf_crop_and_resize, the roi. Each output coordinate maps to an input coordinate by ONNX's
// formula for the coordinate_transformation_mode, evaluated in float64 in ONNX's order so that
// nearest rounding sees the same ties; nearest picks one element (nearest_mode), linear and cubic
// blend 2 or 4 neighbours along every resized axis, clamped to the edge.
std::vector<Tensor> lowerResize(const OperatorContext& context) {
  requireOperands(context, 1, 1);
  requireOutputs(context, 1);
  const Tensor& x = context.operand(0);
  const std::size_t rank = x->shape.size();
  const Shape& shape = outputShape(context);
  if (shape.size() != rank)
    context.fail("the output must have the input's rank");
  const std::string mode = stringAttribute(context, "mode", "nearest");
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    context.fail("mode '" + mode + "' is not nearest, linear or cubic");
  if (mode != "nearest" && !graph::isFloatingPoint(x->dtype))
    context.fail(mode + " mode needs a floating-point input");
  const double cubicA = floatAttribute(context, "cubic_coeff_a", -0.75);
  const bool excludeOutside = intAttribute(context, "exclude_outside", 0) != 0;
  const std::string transform =
      stringAttribute(context, "coordinate_transformation_mode", "half_pixel");
  static const std::set<std::string> transforms{"half_pixel",           "pytorch_half_pixel",
                                                "align_corners",        "asymmetric",
                                                "tf_half_pixel_for_nn", "tf_crop_and_resize"};
  if (!transforms.count(transform))
    context.fail("coordinate_transformation_mode '" + transform + "' is not supported");
  const std::string nearestMode = stringAttribute(context, "nearest_mode", "round_prefer_floor");
  if (nearestMode != "round_prefer_floor" && nearestMode != "round_prefer_ceil" &&
      nearestMode != "floor" && nearestMode != "ceil")
    context.fail("nearest_mode '" + nearestMode + "' is not supported");
  const graph::AttributeValue* scalesValue =
      graph::findAttribute(context.node.attributes, "scales");
  const auto* scaleList = scalesValue ? std::get_if<std::vector<double>>(scalesValue) : nullptr;
  if (!scaleList || scaleList->size() != rank)
    context.fail("needs one scale per axis");
  std::vector<double> roi;
  if (transform == "tf_crop_and_resize") {
    const graph::AttributeValue* roiValue = graph::findAttribute(context.node.attributes, "roi");
    const auto* roiList = roiValue ? std::get_if<std::vector<double>>(roiValue) : nullptr;
    if (!roiList || roiList->size() != 2 * rank)
      context.fail("tf_crop_and_resize needs a constant roi of " + std::to_string(2 * rank) +
                   " values");
    roi = *roiList;
  }
  const double extrapolation = floatAttribute(context, "extrapolation_value", 0.0);
  const DataType real = DataType::Float64;
  auto constant = [&](double value) { return floatImm(value, real); };
  // The input coordinate of output index `resized` along `axis`, as ONNX writes it.
  auto original = [&](std::size_t axis, const Expr& resized) -> Expr {
    const double scale = (*scaleList)[axis];
    const auto inExtent = static_cast<double>(x->shape[axis]);
    // ONNX's reference takes the output length as input length times scale, unrounded.
    const double outExtent = scale * inExtent;
    const Expr r = cast(real, resized);
    if (transform == "asymmetric")
      return r / constant(scale);
    if (transform == "half_pixel" || (transform == "pytorch_half_pixel" && outExtent > 1))
      return (r + constant(0.5)) / constant(scale) - constant(0.5);
    if (transform == "pytorch_half_pixel")
      return constant(-0.5);
    if (transform == "align_corners")
      return outExtent == 1 ? constant(0) : r * constant(inExtent - 1) / constant(outExtent - 1);
    if (transform == "tf_half_pixel_for_nn")
      return (r + constant(0.5)) / constant(scale);
    const double start = roi[axis], end = roi[rank + axis]; // tf_crop_and_resize
    if (outExtent > 1)
      return r * constant(end - start) * constant(inExtent - 1) / constant(outExtent - 1) +
             constant(start * (inExtent - 1));
    return constant((end - start) * (inExtent - 1) / 2 + start * (inExtent - 1));
  };
  // Axes whose coordinate is the output index itself need no arithmetic.
  auto identity = [&](std::size_t axis) {
    return x->shape[axis] == shape[axis] && (*scaleList)[axis] == 1.0 &&
           transform != "tf_half_pixel_for_nn" && transform != "tf_crop_and_resize";
  };
  auto clampIndex = [&](const Expr& index, std::size_t axis) {
    return minimum(maximum(index, intImm(0)), intImm(x->shape[axis] - 1));
  };
  return {compute(context.stageName, shape, [&](const std::vector<Expr>& indices) {
    Expr outside; // tf_crop_and_resize: the coordinate leaves the input
    std::vector<Expr> coordinates(rank);
    for (std::size_t axis = 0; axis < rank; ++axis) {
      if (identity(axis))
        continue;
      coordinates[axis] = original(axis, indices[axis]);
      if (transform == "tf_crop_and_resize") {
        const Expr beyond = coordinates[axis] < constant(0) ||
                            coordinates[axis] > constant(static_cast<double>(x->shape[axis] - 1));
        outside = outside ? outside || beyond : beyond;
      }
    }
    Expr value;
    if (mode == "nearest") {
      std::vector<Expr> inputIndices(rank);
      for (std::size_t axis = 0; axis < rank; ++axis) {
        if (!coordinates[axis]) {
          inputIndices[axis] = indices[axis];
          continue;
        }
        const Expr& c = coordinates[axis];
        Expr rounded;
        if (nearestMode == "round_prefer_floor") // ties down, else the nearest
          rounded = call(CallFunction::Ceil, {c - constant(0.5)});
        else if (nearestMode == "round_prefer_ceil") // ties up, else the nearest
          rounded = call(CallFunction::Floor, {c + constant(0.5)});
        else
          rounded = call(nearestMode == "floor" ? CallFunction::Floor : CallFunction::Ceil, {c});
        inputIndices[axis] = clampIndex(cast(DataType::Int64, rounded), axis);
      }
      value = load(x, inputIndices);
    } else {
      // The blend of the taps around the coordinate of every resized axis: linear takes the two
      // neighbours floor(c) and floor(c) + 1, cubic the four from floor(c) - 1, all clamped to
      // the edge (ONNX's edge padding). With exclude_outside, taps outside the input get weight
      // 0 and the others are renormalised.
      std::vector<std::size_t> resized;
      for (std::size_t axis = 0; axis < rank; ++axis)
        if (coordinates[axis])
          resized.push_back(axis);
      const std::size_t taps = mode == "linear" ? 2 : 4;
      const std::int64_t firstTap = mode == "linear" ? 0 : -1;
      std::vector<Expr> lower(rank);
      std::vector<std::vector<Expr>> weights(rank);
      for (std::size_t axis : resized) {
        const Expr floor = call(CallFunction::Floor, {coordinates[axis]});
        lower[axis] = cast(DataType::Int64, floor);
        const Expr ratio = coordinates[axis] - floor;
        if (mode == "linear") {
          weights[axis] = {constant(1) - ratio, ratio};
          continue;
        }
        // ONNX's cubic convolution coefficients for taps at distances 1 + r, r, 1 - r, 2 - r.
        const Expr a = constant(cubicA), one = constant(1);
        const Expr near = ratio, far = one - ratio;
        auto outer = [&](const Expr& t) { // |distance| in [1, 2]: t = distance - 1
          const Expr d = t + one;
          return ((a * d - constant(5 * cubicA)) * d + constant(8 * cubicA)) * d -
                 constant(4 * cubicA);
        };
        auto inner = [&](const Expr& d) { // |distance| in [0, 1]
          return ((constant(cubicA + 2) * d - constant(cubicA + 3)) * d) * d + one;
        };
        weights[axis] = {outer(near), inner(near), inner(far), outer(far)};
        if (excludeOutside) {
          Expr total;
          for (std::size_t tap = 0; tap < taps; ++tap) {
            const Expr index = lower[axis] + intImm(firstTap + static_cast<std::int64_t>(tap));
            weights[axis][tap] = select(index >= intImm(0) && index < intImm(x->shape[axis]),
                                        weights[axis][tap], constant(0));
            total = total ? total + weights[axis][tap] : weights[axis][tap];
          }
          for (Expr& weight : weights[axis])
            weight = weight / total;
        }
      }
      std::size_t corners = 1;
      for (std::size_t k = 0; k < resized.size(); ++k)
        corners *= taps;
      for (std::size_t corner = 0; corner < corners; ++corner) {
        std::vector<Expr> inputIndices = indices;
        Expr factor;
        std::size_t rest = corner;
        for (std::size_t axis : resized) {
          const std::size_t tap = rest % taps;
          rest /= taps;
          inputIndices[axis] =
              clampIndex(lower[axis] + intImm(firstTap + static_cast<std::int64_t>(tap)), axis);
          const Expr& w = weights[axis][tap];
          factor = factor ? factor * w : w;
        }
        const Expr term = cast(real, load(x, inputIndices));
        const Expr weighted = factor ? factor * term : term;
        value = value ? value + weighted : weighted;
      }
      value = cast(x->dtype, value);
    }
    return outside ? select(outside, typedConstant(extrapolation, x->dtype), value) : value;
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
  registry["Gather"] = lowerGather;
  registry["Expand"] = lowerExpand;
  registry["Pad"] = lowerPad;
  registry["Tile"] = lowerTile;
  registry["GatherElements"] = lowerGatherElements;
  registry["Trilu"] = lowerTrilu;
  registry["DepthToSpace"] = lowerDepthToSpace;
  registry["SpaceToDepth"] = lowerSpaceToDepth;
  registry["OneHot"] = lowerOneHot;
  registry["Resize"] = lowerResize;
  registry["GatherND"] = lowerGatherND;
  registry["ScatterElements"] = lowerScatterElements;
  registry["Scatter"] = lowerScatterElements; // opset 9-10's name, without reduction
  registry["ScatterND"] = lowerScatterND;
  registry["ReverseSequence"] = lowerReverseSequence;
}

} // namespace clustune::te::topi
