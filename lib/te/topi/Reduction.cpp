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
      const std::vector<Expr> row = withoutAxis(indices);
      return call(CallFunction::Exp, {shifted(indices, row)}) / load(rowSum, row);
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
  const double epsilon = floatAttribute(context, "epsilon", 1e-5);
  std::vector<std::int64_t> normalizedAxes;
  std::int64_t count = 1;
  for (auto k = axis; k < static_cast<std::int64_t>(rank); ++k) {
    normalizedAxes.push_back(k);
    count *= x->shape[k];
  }
  const Expr reciprocalCount = typedConstant(1.0 / static_cast<double>(count), x->dtype);
  auto statisticIndices = [&](const std::vector<Expr>& indices) {
    std::vector<Expr> kept(indices.begin(), indices.begin() + axis);
    kept.resize(rank, intImm(0));
    return kept;
  };
  const Tensor mean =
      reductionStage(context.stageName + ".mean", x->shape, normalizedAxes, true, Reducer::Sum,
                     [&](const std::vector<Expr>& inputIndices, const std::vector<Expr>&) {
                       return load(x, inputIndices) * reciprocalCount;
                     });
  const Tensor variance = reductionStage(
      context.stageName + ".variance", x->shape, normalizedAxes, true, Reducer::Sum,
      [&](const std::vector<Expr>& inputIndices, const std::vector<Expr>& statistic) {
        const Expr deviation = load(x, inputIndices) - load(mean, statistic);
        return deviation * deviation * reciprocalCount;
      });
  const Tensor invStdDev =
      compute(context.stageName + ".invstddev", mean->shape, [&](const std::vector<Expr>& indices) {
        return typedConstant(1, x->dtype) /
               call(CallFunction::Sqrt,
                    {load(variance, indices) + typedConstant(epsilon, x->dtype)});
      });
  for (std::size_t operand = 1; operand < context.operands.size(); ++operand)
    if (context.hasOperand(operand) && context.operand(operand)->dtype != x->dtype)
      context.fail("scale and bias must have the input's dtype");
  std::vector<Tensor> outputs{
      compute(context.stageName, x->shape, [&](const std::vector<Expr>& indices) {
        const std::vector<Expr> statistic = statisticIndices(indices);
        Expr value = (load(x, indices) - load(mean, statistic)) * load(invStdDev, statistic) *
                     broadcastOperand(context, 1, indices);
        if (context.hasOperand(2))
          value = value + broadcastOperand(context, 2, indices);
        return value;
      })};
  // The optional statistics outputs, in the dtype the task records (stash_type).
  const Tensor statistics[] = {mean, invStdDev};
  for (std::size_t output = 1; output < context.node.outputShapes.size(); ++output) {
    const Tensor& statistic = statistics[output - 1];
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
}

} // namespace clustune::te::topi
