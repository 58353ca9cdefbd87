// Lowerings of the reduction operators (CommReduce pattern kind, except the pooling family in
// Pooling.cpp). A stage's body is either free of Reduce or a single Reduce, so an operator that
// needs a reduction and arithmetic on its result is several stages: ReduceMean is a sum then a
// division (ReduceL2 a sum of squares then sqrt, ReduceLogSumExp a max, a shifted exp-sum and a
// logarithm), Softmax a max, a sum of exponentials and a division (LogSoftmax a logarithm of the
// sum and a subtraction), LayerNormalization a mean, a variance and a normalisation. Schedules
// may inline the element-wise ones.
#include "te/topi/Common.h"

#include <algorithm>
#include <limits>

namespace clustune::te::topi {
namespace {

// Indices into the input of a reduction over `reducedAxes` (sorted): the reduce variables on
// those axes and the output indices elsewhere. With `keptAxes` the output keeps a unit
// dimension in place of each reduced one (keepdims), else it drops it.
std::vector<Expr> reductionInputIndices(std::size_t rank,
                                        const std::vector<std::int64_t>& reducedAxes,
                                        const std::vector<IterVar>& reduceVars,
                                        const std::vector<Expr>& outputIndices, bool keptAxes) {
  std::vector<Expr> indices;
  std::size_t reduced = 0, output = 0;
  for (std::size_t axis = 0; axis < rank; ++axis) {
    if (reduced < reducedAxes.size() && reducedAxes[reduced] == static_cast<std::int64_t>(axis)) {
      indices.push_back(varExpr(reduceVars[reduced++].var));
      if (keptAxes)
        ++output;
    } else {
      indices.push_back(outputIndices[output++]);
    }
  }
  return indices;
}

std::vector<IterVar> reduceVariables(const std::string& stageName, const Shape& inputShape,
                                     const std::vector<std::int64_t>& reducedAxes) {
  std::vector<IterVar> variables;
  for (std::size_t k = 0; k < reducedAxes.size(); ++k)
    variables.push_back(
        {makeVar(stageName + ".r" + std::to_string(k)), inputShape[reducedAxes[k]]});
  return variables;
}

// The shape of reducing `shape` over the (sorted) `reducedAxes`.
Shape reducedShape(const Shape& shape, const std::vector<std::int64_t>& reducedAxes,
                   bool keptAxes) {
  Shape result;
  for (std::size_t axis = 0; axis < shape.size(); ++axis) {
    const bool reduced =
        std::binary_search(reducedAxes.begin(), reducedAxes.end(), static_cast<std::int64_t>(axis));
    if (!reduced)
      result.push_back(shape[axis]);
    else if (keptAxes)
      result.push_back(1);
  }
  return result;
}

// A stage that combines `source(input indices)` over `reducedAxes` of `input`.
Tensor reductionStage(
    const std::string& name, const Shape& inputShape, const std::vector<std::int64_t>& reducedAxes,
    bool keptAxes, Reducer reducer,
    const std::function<Expr(const std::vector<Expr>&, const std::vector<Expr>&)>& source) {
  const std::vector<IterVar> variables = reduceVariables(name, inputShape, reducedAxes);
  return compute(
      name, reducedShape(inputShape, reducedAxes, keptAxes), [&](const std::vector<Expr>& indices) {
        const std::vector<Expr> inputIndices =
            reductionInputIndices(inputShape.size(), reducedAxes, variables, indices, keptAxes);
        return reduce(reducer, source(inputIndices, indices), variables);
      });
}

void requireAxes(const OperatorContext& context, const std::vector<std::int64_t>& axes,
                 std::size_t rank) {
  for (std::size_t k = 0; k < axes.size(); ++k)
    if (axes[k] < 0 || axes[k] >= static_cast<std::int64_t>(rank) || (k && axes[k] <= axes[k - 1]))
      context.fail("axes must be distinct, sorted and within rank " + std::to_string(rank));
}

// What a Reduce* operator computes around its reducer: `element` maps each input element before
// the reduction (|x| for ReduceL1, x * x for ReduceSumSquare and ReduceL2), `finish` maps the
// reduced value given the number of elements reduced (a division for ReduceMean, sqrt for
// ReduceL2, log for ReduceLogSum). Either may be null, for the identity.
struct ReductionForm {
  Reducer reducer = Reducer::Sum;
  std::function<Expr(const Expr& x)> element = nullptr;
  std::function<Expr(const Expr& reduced, std::int64_t count)> finish = nullptr;
  bool floatOnly = false;
};

// Empty axes is a no-op for ReduceSum (noop_with_empty_axes; normalisation has already turned
// "all axes" into an explicit list), else the input is a scalar whose reduction is the one
// element mapped and finished.
OperatorLowering reduceOperator(ReductionForm form) {
  return [form](const OperatorContext& context) -> std::vector<Tensor> {
    requireOperands(context, 1, 1);
    requireOutputs(context, 1);
    const Tensor& x = context.operand(0);
    if (form.floatOnly && !graph::isFloatingPoint(x->dtype))
      context.fail("needs a floating-point operand");
    const auto axes = intsAttribute(context, "axes");
    const bool keptAxes = intAttribute(context, "keepdims", 1) != 0;
    requireAxes(context, axes, x->shape.size());
    auto element = [&](const std::vector<Expr>& inputIndices) {
      Expr value = load(x, inputIndices);
      return form.element ? form.element(value) : value;
    };
    if (axes.empty()) {
      if (!form.element && !form.finish)
        return {copyStage(context.stageName, x)};
      return {compute(context.stageName, x->shape, [&](const std::vector<Expr>& indices) {
        return form.finish ? form.finish(element(indices), 1) : element(indices);
      })};
    }
    auto source = [&](const std::vector<Expr>& inputIndices, const std::vector<Expr>&) {
      return element(inputIndices);
    };
    if (!form.finish)
      return {reductionStage(context.stageName, x->shape, axes, keptAxes, form.reducer, source)};
    const Tensor reduced = reductionStage(context.stageName + "." + reducerName(form.reducer),
                                          x->shape, axes, keptAxes, form.reducer, source);
    std::int64_t count = 1;
    for (std::int64_t axis : axes)
      count *= x->shape[axis];
    return {compute(context.stageName, reduced->shape, [&](const std::vector<Expr>& indices) {
      return form.finish(load(reduced, indices), count);
    })};
  };
}

// log(sum(exp(x))) as max + log(sum(exp(x - max))), so that exp cannot overflow. The shift is
// at least the dtype's lowest finite value: a slice that is all -inf would otherwise shift by
// -inf and give NaN where the answer is -inf.
std::vector<Tensor> lowerReduceLogSumExp(const OperatorContext& context) {
  requireOperands(context, 1, 1);
  requireOutputs(context, 1);
  const Tensor& x = context.operand(0);
  if (!graph::isFloatingPoint(x->dtype))
    context.fail("needs a floating-point operand");
  const auto axes = intsAttribute(context, "axes");
  const bool keptAxes = intAttribute(context, "keepdims", 1) != 0;
  requireAxes(context, axes, x->shape.size());
  if (axes.empty())
    return {copyStage(context.stageName, x)};
  const double lowest = x->dtype == DataType::Float32 ? std::numeric_limits<float>::lowest()
                                                      : std::numeric_limits<double>::lowest();
  const Tensor maximumStage =
      reductionStage(context.stageName + ".max", x->shape, axes, keptAxes, Reducer::Max,
                     [&](const std::vector<Expr>& inputIndices, const std::vector<Expr>&) {
                       return load(x, inputIndices);
                     });
  const Tensor shift = compute(
      context.stageName + ".shift", maximumStage->shape, [&](const std::vector<Expr>& indices) {
        return maximum(load(maximumStage, indices), typedConstant(lowest, x->dtype));
      });
  const Tensor expSum = reductionStage(
      context.stageName + ".expsum", x->shape, axes, keptAxes, Reducer::Sum,
      [&](const std::vector<Expr>& inputIndices, const std::vector<Expr>& outputIndices) {
        return call(CallFunction::Exp, {load(x, inputIndices) - load(shift, outputIndices)});
      });
  return {compute(context.stageName, expSum->shape, [&](const std::vector<Expr>& indices) {
    return load(shift, indices) + call(CallFunction::Log, {load(expSum, indices)});
  })};
}

// Softmax, or LogSoftmax with `logarithm`, over one axis (opset 13 semantics), shifted by the
// maximum so exp cannot overflow. LogSoftmax takes the logarithm of each row's sum once, in a
// row-shaped stage, and subtracts it from the shifted input rather than adding the maximum to it:
// max + log(sum) would lose the low bits of log(sum) when the inputs are large.
std::vector<Tensor> lowerSoftmax(const OperatorContext& context, bool logarithm) {
  requireOperands(context, 1, 1);
  requireOutputs(context, 1);
  const Tensor& x = context.operand(0);
  if (!graph::isFloatingPoint(x->dtype))
    context.fail("needs a floating-point operand");
  const std::int64_t axis = intAttribute(context, "axis");
  const std::vector<std::int64_t> axes{axis};
  requireAxes(context, axes, x->shape.size());
  auto withoutAxis = [&](const std::vector<Expr>& indices) {
    std::vector<Expr> rowIndices = indices;
    rowIndices.erase(rowIndices.begin() + axis);
    return rowIndices;
  };
  const Tensor rowMax =
      reductionStage(context.stageName + ".max", x->shape, axes, false, Reducer::Max,
                     [&](const std::vector<Expr>& inputIndices, const std::vector<Expr>&) {
                       return load(x, inputIndices);
                     });
  auto shifted = [&](const std::vector<Expr>& inputIndices, const std::vector<Expr>& row) {
    return load(x, inputIndices) - load(rowMax, row);
  };
  const Tensor rowSum =
      reductionStage(context.stageName + ".expsum", x->shape, axes, false, Reducer::Sum,
                     [&](const std::vector<Expr>& inputIndices, const std::vector<Expr>& row) {
                       return call(CallFunction::Exp, {shifted(inputIndices, row)});
                     });
  if (!logarithm)
    return {compute(context.stageName, x->shape, [&](const std::vector<Expr>& indices) {
      // A product by the row's reciprocal, as ONNX Runtime's softmax computes it: code
      // generation divides once per row (the reciprocal does not depend on the vector lanes)
      // where x / sum divided per element; the result differs by about an ulp.
      const std::vector<Expr> row = withoutAxis(indices);
      return call(CallFunction::Exp, {shifted(indices, row)}) *
             (typedConstant(1.0, x->dtype) / load(rowSum, row));
    })};
  const Tensor rowLogSum =
      compute(context.stageName + ".logsum", rowSum->shape, [&](const std::vector<Expr>& row) {
        return call(CallFunction::Log, {load(rowSum, row)});
      });
  return {compute(context.stageName, x->shape, [&](const std::vector<Expr>& indices) {
    const std::vector<Expr> row = withoutAxis(indices);
    return shifted(indices, row) - load(rowLogSum, row);
  })};
}

// The statistics of normalising x over its trailing axes, from `firstAxis` on: stages of shape
// x.shape[:firstAxis] + [1, ...] holding the mean and 1 / sqrt(variance + epsilon).
struct TrailingStatistics {
  Tensor mean;
  Tensor invStdDev;
  std::size_t firstAxis;

  // The indices of an element's statistics: its own up to firstAxis, then zeros.
  std::vector<Expr> indicesOf(const std::vector<Expr>& indices) const {
    std::vector<Expr> kept(indices.begin(),
                           indices.begin() + static_cast<std::ptrdiff_t>(firstAxis));
    kept.resize(indices.size(), intImm(0));
    return kept;
  }
};

TrailingStatistics trailingStatistics(const std::string& stageName, const Tensor& x,
                                      std::size_t firstAxis, double epsilon) {
  std::vector<std::int64_t> normalizedAxes;
  std::int64_t count = 1;
  for (std::size_t k = firstAxis; k < x->shape.size(); ++k) {
    normalizedAxes.push_back(static_cast<std::int64_t>(k));
    count *= x->shape[k];
  }
  const Expr reciprocalCount = typedConstant(1.0 / static_cast<double>(count), x->dtype);
  const Tensor mean =
      reductionStage(stageName + ".mean", x->shape, normalizedAxes, true, Reducer::Sum,
                     [&](const std::vector<Expr>& inputIndices, const std::vector<Expr>&) {
                       return load(x, inputIndices) * reciprocalCount;
                     });
  const Tensor variance = reductionStage(
      stageName + ".variance", x->shape, normalizedAxes, true, Reducer::Sum,
      [&](const std::vector<Expr>& inputIndices, const std::vector<Expr>& statistic) {
        const Expr deviation = load(x, inputIndices) - load(mean, statistic);
        return deviation * deviation * reciprocalCount;
      });
  const Tensor invStdDev =
      compute(stageName + ".invstddev", mean->shape, [&](const std::vector<Expr>& indices) {
        return typedConstant(1, x->dtype) /
               call(CallFunction::Sqrt,
                    {load(variance, indices) + typedConstant(epsilon, x->dtype)});
      });
  return {mean, invStdDev, firstAxis};
}

// Normalises over the axes from `axis` on: Y = (X - mean) * invStdDev * Scale + B, with the
// statistics as stages of shape X.shape[:axis] + [1, ...] (the shape of the optional Mean and
// InvStdDev outputs).
std::vector<Tensor> lowerLayerNormalization(const OperatorContext& context) {
  requireOperands(context, 2, 3);
  requireOutputs(context, 3);
  const Tensor& x = context.operand(0);
  if (!graph::isFloatingPoint(x->dtype))
    context.fail("needs a floating-point operand");
  const std::size_t rank = x->shape.size();
  const std::int64_t axis = intAttribute(context, "axis");
  if (axis < 0 || axis >= static_cast<std::int64_t>(rank))
    context.fail("axis " + std::to_string(axis) + " is out of range for rank " +
                 std::to_string(rank));
  const TrailingStatistics statistics =
      trailingStatistics(context.stageName, x, static_cast<std::size_t>(axis),
                         floatAttribute(context, "epsilon", 1e-5));
  for (std::size_t operand = 1; operand < context.operands.size(); ++operand)
    if (context.hasOperand(operand) && context.operand(operand)->dtype != x->dtype)
      context.fail("scale and bias must have the input's dtype");
  std::vector<Tensor> outputs{
      compute(context.stageName, x->shape, [&](const std::vector<Expr>& indices) {
        const std::vector<Expr> statistic = statistics.indicesOf(indices);
        Expr value = (load(x, indices) - load(statistics.mean, statistic)) *
                     load(statistics.invStdDev, statistic) * broadcastOperand(context, 1, indices);
        if (context.hasOperand(2))
          value = value + broadcastOperand(context, 2, indices);
        return value;
      })};
  // The optional statistics outputs, in the dtype the task records (stash_type).
  const Tensor statisticOutputs[] = {statistics.mean, statistics.invStdDev};
  for (std::size_t output = 1; output < context.node.outputShapes.size(); ++output) {
    const Tensor& statistic = statisticOutputs[output - 1];
    const DataType dtype = outputType(context, output);
    outputs.push_back(dtype == statistic->dtype
                          ? statistic
                          : compute(statistic->name + ".cast", statistic->shape,
                                    [&](const std::vector<Expr>& indices) {
                                      return cast(dtype, load(statistic, indices));
                                    }));
  }
  return outputs;
}

// The position of the extreme (maximum with `largest`, else minimum) along `axis`: a stage of
// the extreme, then the first (or, with `last`, the last) position holding it. Positions are
// int64. A slice whose extreme is NaN matches nowhere and gives -1 (last) or the axis' extent.
Tensor argExtremeStage(const std::string& name, const Tensor& x, std::int64_t axis, bool keptAxes,
                       bool largest, bool last) {
  const std::vector<std::int64_t> axes{axis};
  const Tensor extreme =
      reductionStage(name + (largest ? ".max" : ".min"), x->shape, axes, keptAxes,
                     largest ? Reducer::Max : Reducer::Min,
                     [&](const std::vector<Expr>& inputIndices, const std::vector<Expr>&) {
                       return load(x, inputIndices);
                     });
  const Expr none = intImm(last ? -1 : x->shape[axis]);
  return reductionStage(
      name, x->shape, axes, keptAxes, last ? Reducer::Max : Reducer::Min,
      [&](const std::vector<Expr>& inputIndices, const std::vector<Expr>& outputIndices) {
        return select(load(x, inputIndices) == load(extreme, outputIndices), inputIndices[axis],
                      none);
      });
}

OperatorLowering argExtremeOperator(bool largest) {
  return [largest](const OperatorContext& context) -> std::vector<Tensor> {
    requireOperands(context, 1, 1);
    requireOutputs(context, 1);
    const Tensor& x = context.operand(0);
    const std::int64_t axis = intAttribute(context, "axis");
    requireAxes(context, {axis}, x->shape.size());
    return {argExtremeStage(context.stageName, x, axis, intAttribute(context, "keepdims", 1) != 0,
                            largest, intAttribute(context, "select_last_index", 0) != 0)};
  };
}

// Hardmax (opset 13: one axis): 1 at the first maximum along the axis, 0 elsewhere.
std::vector<Tensor> lowerHardmax(const OperatorContext& context) {
  requireOperands(context, 1, 1);
  requireOutputs(context, 1);
  const Tensor& x = context.operand(0);
  if (!graph::isFloatingPoint(x->dtype))
    context.fail("needs a floating-point operand");
  const std::int64_t axis = intAttribute(context, "axis");
  requireAxes(context, {axis}, x->shape.size());
  const Tensor position =
      argExtremeStage(context.stageName + ".argmax", x, axis, true, true, false);
  return {compute(context.stageName, x->shape, [&](const std::vector<Expr>& indices) {
    std::vector<Expr> row = indices;
    row[axis] = intImm(0);
    return select(indices[axis] == load(position, row), typedConstant(1, x->dtype),
                  typedConstant(0, x->dtype));
  })};
}

// CumSum along one axis: out[i] sums x[j] for j <= i (j < i exclusive; j >= i, j > i reversed),
// a sum over the whole axis with the other terms selected away.
std::vector<Tensor> lowerCumSum(const OperatorContext& context) {
  requireOperands(context, 1, 1);
  requireOutputs(context, 1);
  const Tensor& x = context.operand(0);
  const std::int64_t axis = intAttribute(context, "axis");
  requireAxes(context, {axis}, x->shape.size());
  const bool exclusive = intAttribute(context, "exclusive", 0) != 0;
  const bool reverse = intAttribute(context, "reverse", 0) != 0;
  const IterVar term{makeVar(context.stageName + ".r0"), x->shape[axis]};
  return {compute(context.stageName, x->shape, [&](const std::vector<Expr>& indices) {
    const Expr j = varExpr(term.var), i = indices[axis];
    const Expr taken = reverse ? (exclusive ? j > i : j >= i) : (exclusive ? j < i : j <= i);
    std::vector<Expr> inputIndices = indices;
    inputIndices[axis] = j;
    return reduce(Reducer::Sum, select(taken, load(x, inputIndices), typedConstant(0, x->dtype)),
                  {term});
  })};
}

// InstanceNormalization: each (n, c) slice of an (N, C, spatial...) input normalised over its
// spatial axes, then scaled and shifted per channel.
std::vector<Tensor> lowerInstanceNormalization(const OperatorContext& context) {
  requireOperands(context, 3, 3);
  requireOutputs(context, 1);
  const Tensor& x = context.operand(0);
  if (!graph::isFloatingPoint(x->dtype))
    context.fail("needs a floating-point operand");
  const std::size_t rank = x->shape.size();
  if (rank < 3)
    context.fail("needs an (N, C, spatial...) input of rank 3 or more");
  for (std::size_t operand = 1; operand < 3; ++operand) {
    const Tensor& perChannel = context.operand(operand);
    if (perChannel->dtype != x->dtype || perChannel->shape != Shape{x->shape[1]})
      context.fail("scale and bias must be " + std::string(graph::dataTypeName(x->dtype)) + "[" +
                   std::to_string(x->shape[1]) + "]");
  }
  const TrailingStatistics statistics =
      trailingStatistics(context.stageName, x, 2, floatAttribute(context, "epsilon", 1e-5));
  return {compute(context.stageName, x->shape, [&](const std::vector<Expr>& indices) {
    const std::vector<Expr> statistic = statistics.indicesOf(indices);
    return (load(x, indices) - load(statistics.mean, statistic)) *
               load(statistics.invStdDev, statistic) * load(context.operand(1), {indices[1]}) +
           load(context.operand(2), {indices[1]});
  })};
}

// TopK along one axis (k an attribute): each element's rank is the number of elements before it
// in the order (larger first with `largest`, ties to the lower index, as ONNX says); output
// position r then sums the one element of rank r, and its index. Both sums run over the whole
// axis, so the cost is quadratic in its extent. The outputs are always sorted, which `sorted=0`
// allows.
std::vector<Tensor> lowerTopK(const OperatorContext& context) {
  requireOperands(context, 1, 1);
  requireOutputs(context, 2);
  const Tensor& x = context.operand(0);
  const std::int64_t axis = intAttribute(context, "axis");
  requireAxes(context, {axis}, x->shape.size());
  const std::int64_t k = intAttribute(context, "k");
  const std::int64_t extent = x->shape[axis];
  if (k < 0 || k > extent)
    context.fail("k " + std::to_string(k) + " is out of range for extent " +
                 std::to_string(extent));
  const bool largest = intAttribute(context, "largest", 1) != 0;
  const IterVar other{makeVar(context.stageName + ".rank.r0"), extent};
  const Tensor rank =
      compute(context.stageName + ".rank", x->shape, [&](const std::vector<Expr>& indices) {
        const Expr j = varExpr(other.var), i = indices[axis];
        std::vector<Expr> otherIndices = indices;
        otherIndices[axis] = j;
        const Expr mine = load(x, indices), theirs = load(x, otherIndices);
        const Expr before = (largest ? theirs > mine : theirs < mine) || (theirs == mine && j < i);
        return reduce(Reducer::Sum, select(before, intImm(1), intImm(0)), {other});
      });
  Shape shape = x->shape;
  shape[axis] = k;
  auto pick = [&](const std::string& name, bool index) {
    const IterVar element{makeVar(name + ".r0"), extent};
    return compute(name, shape, [&](const std::vector<Expr>& indices) {
      std::vector<Expr> elementIndices = indices;
      elementIndices[axis] = varExpr(element.var);
      const Expr chosen = load(rank, elementIndices) == indices[axis];
      const Expr value = index ? varExpr(element.var) : load(x, elementIndices);
      return reduce(Reducer::Sum, select(chosen, value, typedConstant(0, value->dtype)), {element});
    });
  };
  std::vector<Tensor> outputs{pick(context.stageName, false)};
  if (context.node.outputShapes.size() > 1)
    outputs.push_back(pick(context.stageName + ".indices", true));
  return outputs;
}

// LRN: each element divided by (bias + alpha / size * the sum of squares over a window of `size`
// channels around it)^beta; the window is cut at the first and last channel.
std::vector<Tensor> lowerLRN(const OperatorContext& context) {
  requireOperands(context, 1, 1);
  requireOutputs(context, 1);
  const Tensor& x = context.operand(0);
  if (!graph::isFloatingPoint(x->dtype))
    context.fail("needs a floating-point operand");
  if (x->shape.size() < 3)
    context.fail("needs an (N, C, spatial...) input");
  const std::int64_t size = intAttribute(context, "size");
  if (size <= 0)
    context.fail("size must be positive");
  const double alpha = floatAttribute(context, "alpha", 1e-4);
  const double beta = floatAttribute(context, "beta", 0.75);
  const double bias = floatAttribute(context, "bias", 1.0);
  const std::int64_t channels = x->shape[1], before = (size - 1) / 2;
  const IterVar window{makeVar(context.stageName + ".squares.r0"), size};
  const Tensor squares =
      compute(context.stageName + ".squares", x->shape, [&](const std::vector<Expr>& indices) {
        const Expr channel = indices[1] - intImm(before) + varExpr(window.var);
        std::vector<Expr> inputIndices = indices;
        inputIndices[1] = minimum(maximum(channel, intImm(0)), intImm(channels - 1));
        const Expr value = load(x, inputIndices);
        return reduce(Reducer::Sum,
                      select(channel >= intImm(0) && channel < intImm(channels), value * value,
                             typedConstant(0, x->dtype)),
                      {window});
      });
  return {compute(context.stageName, x->shape, [&](const std::vector<Expr>& indices) {
    const Expr scaled =
        typedConstant(bias, x->dtype) +
        typedConstant(alpha / static_cast<double>(size), x->dtype) * load(squares, indices);
    return load(x, indices) / call(CallFunction::Pow, {scaled, typedConstant(beta, x->dtype)});
  })};
}

// MeanVarianceNormalization, as ONNX's function body computes it: (X - E[X]) /
// (sqrt(E[X^2] - E[X]^2) + 1e-9), the expectations over `axes` (default 0, 2, 3).
std::vector<Tensor> lowerMeanVarianceNormalization(const OperatorContext& context) {
  requireOperands(context, 1, 1);
  requireOutputs(context, 1);
  const Tensor& x = context.operand(0);
  if (!graph::isFloatingPoint(x->dtype))
    context.fail("needs a floating-point operand");
  const auto axes = intsAttribute(context, "axes");
  requireAxes(context, axes, x->shape.size());
  std::int64_t count = 1;
  for (std::int64_t axis : axes)
    count *= x->shape[axis];
  const Expr reciprocalCount = typedConstant(1.0 / static_cast<double>(count), x->dtype);
  auto mean = [&](const std::string& name, bool squared) {
    return reductionStage(name, x->shape, axes, true, Reducer::Sum,
                          [&](const std::vector<Expr>& inputIndices, const std::vector<Expr>&) {
                            const Expr value = load(x, inputIndices);
                            return (squared ? value * value : value) * reciprocalCount;
                          });
  };
  const Tensor meanStage = mean(context.stageName + ".mean", false);
  const Tensor squareMean = mean(context.stageName + ".squaremean", true);
  const Tensor deviation = compute(
      context.stageName + ".stddev", meanStage->shape, [&](const std::vector<Expr>& indices) {
        const Expr m = load(meanStage, indices);
        return call(CallFunction::Sqrt, {load(squareMean, indices) - m * m}) +
               typedConstant(1e-9, x->dtype);
      });
  return {compute(context.stageName, x->shape, [&](const std::vector<Expr>& indices) {
    std::vector<Expr> statistic = indices;
    for (std::int64_t axis : axes)
      statistic[axis] = intImm(0);
    return (load(x, indices) - load(meanStage, statistic)) / load(deviation, statistic);
  })};
}

} // namespace

void registerReductionOperators(OperatorRegistry& registry) {
  auto square = [](const Expr& x) { return x * x; };
  registry["ReduceSum"] = reduceOperator({});
  registry["ReduceMean"] = reduceOperator({.finish = [](const Expr& sum, std::int64_t count) {
    return sum / typedConstant(static_cast<double>(count), sum->dtype);
  }});
  registry["ReduceMax"] = reduceOperator({.reducer = Reducer::Max});
  registry["ReduceMin"] = reduceOperator({.reducer = Reducer::Min});
  registry["ReduceL1"] =
      reduceOperator({.element = [](const Expr& x) { return call(CallFunction::Abs, {x}); }});
  registry["ReduceSumSquare"] = reduceOperator({.element = square});
  registry["ReduceL2"] = reduceOperator(
      {.element = square,
       .finish = [](const Expr& sum, std::int64_t) { return call(CallFunction::Sqrt, {sum}); },
       .floatOnly = true});
  registry["ReduceLogSum"] = reduceOperator(
      {.finish = [](const Expr& sum, std::int64_t) { return call(CallFunction::Log, {sum}); },
       .floatOnly = true});
  registry["ReduceLogSumExp"] = lowerReduceLogSumExp;
  registry["Softmax"] = [](const OperatorContext& context) { return lowerSoftmax(context, false); };
  registry["LogSoftmax"] = [](const OperatorContext& context) {
    return lowerSoftmax(context, true);
  };
  registry["LayerNormalization"] = lowerLayerNormalization;
  registry["ReduceProd"] = reduceOperator({.reducer = Reducer::Prod});
  registry["ArgMax"] = argExtremeOperator(true);
  registry["ArgMin"] = argExtremeOperator(false);
  registry["Hardmax"] = lowerHardmax;
  registry["CumSum"] = lowerCumSum;
  registry["InstanceNormalization"] = lowerInstanceNormalization;
  registry["TopK"] = lowerTopK;
  registry["LRN"] = lowerLRN;
  registry["MeanVarianceNormalization"] = lowerMeanVarianceNormalization;
}

} // namespace clustune::te::topi
