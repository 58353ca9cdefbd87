// Lowerings of the operators whose indices are data (Gather, GatherElements, GatherND,
// ScatterElements, ScatterND, OneHot). A kernel must stay inside its tensors whatever indices it
// is fed, so every index read from data is wrapped (negative counts from the end, as ONNX says)
// and clamped where ONNX leaves it undefined.
#include "te/topi/Common.h"

namespace clustune::te::topi {
namespace {

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

} // namespace

void registerIndexingOperators(OperatorRegistry& registry) {
  registry["Gather"] = lowerGather;
  registry["GatherElements"] = lowerGatherElements;
  registry["OneHot"] = lowerOneHot;
  registry["GatherND"] = lowerGatherND;
  registry["ScatterElements"] = lowerScatterElements;
  registry["Scatter"] = lowerScatterElements; // opset 9-10's name, without reduction
  registry["ScatterND"] = lowerScatterND;
}

} // namespace clustune::te::topi
