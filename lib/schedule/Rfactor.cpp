// See DagRewrite.h: the tensors of rfactor, after TVM's Schedule::rfactor. The reduce loops of
// the stage (split and fused as the steps before left them) become the partial tensor's
// iteration space: the factored loop a spatial dimension, the others its reduce axes, and each
// original reduce axis an index expression of those loops (IteratorValues.h), recombined
// exactly as lowering recombines loops into axes.
#include "schedule/DagRewrite.h"
#include "schedule/ExprUtil.h"
#include "schedule/IteratorValues.h"

#include <cassert>

namespace clustune::schedule {

using namespace te;

StagePair rfactorTensors(const Stage& stage, int loopPosition, int factorAxis) {
  const Tensor& tensor = stage.tensor;
  assert(tensor->isReduction());
  const std::size_t spatialCount = tensor->axes.size();
  const Expr& reduction = tensor->body;
  const std::string partialName = tensor->name + ".rf";
  const Iterator& factored = stage.loop(loopPosition);

  // The partial tensor's dimensions: the stage's spatial axes with the factored loop inserted.
  std::vector<IterVar> partialAxes;
  for (std::size_t d = 0; d <= spatialCount; ++d) {
    const std::int64_t extent =
        static_cast<int>(d) == factorAxis
            ? factored.extent
            : tensor->axes[d - (static_cast<int>(d) > factorAxis ? 1 : 0)].extent;
    partialAxes.push_back({makeVar(partialName + ".i" + std::to_string(d)), extent});
  }
  auto partialAxisOf = [&](std::size_t spatialAxis) {
    return partialAxes[spatialAxis + (static_cast<int>(spatialAxis) >= factorAxis ? 1 : 0)];
  };

  std::vector<Expr> values(stage.iterators.size());
  std::vector<IterVar> remainingReduceAxes;
  for (std::size_t position = 0; position < stage.loops.size(); ++position) {
    const Iterator& loop = stage.loop(position);
    if (loop.kind != IteratorKind::Reduce)
      continue;
    if (static_cast<int>(position) == loopPosition) {
      values[stage.loops[position]] = varExpr(partialAxes[factorAxis].var);
      continue;
    }
    remainingReduceAxes.push_back({makeVar(loop.name), loop.extent});
    values[stage.loops[position]] = varExpr(remainingReduceAxes.back().var);
  }
  std::vector<std::int64_t> extents;
  for (const Iterator& iterator : stage.iterators)
    extents.push_back(iterator.extent);
  std::vector<Expr> guards;
  for (const SplitGuard& guard : recombineIteratorValues(stage, extents, values))
    guards.push_back(guard.condition);

  VarMap axisValues;
  for (std::size_t d = 0; d < spatialCount; ++d)
    axisValues[tensor->axes[d].var.get()] = varExpr(partialAxisOf(d).var);
  for (std::size_t r = 0; r < reduction->reduceAxes.size(); ++r) {
    assert(values[spatialCount + r]);
    axisValues[reduction->reduceAxes[r].var.get()] = values[spatialCount + r];
  }
  Expr source = substitute(reduction->operands[0], axisValues);
  if (!guards.empty()) {
    Expr inside = guards.front();
    for (std::size_t k = 1; k < guards.size(); ++k)
      inside = inside && guards[k];
    source = select(inside, source, reducerIdentity(reduction->reducer, source->dtype));
  }
  // With no reduce loop left, each partial result is a single term.
  const Expr partialBody = remainingReduceAxes.empty()
                               ? source
                               : reduce(reduction->reducer, source, remainingReduceAxes);
  Shape partialShape;
  for (const IterVar& axis : partialAxes)
    partialShape.push_back(axis.extent);
  const Tensor partial = std::make_shared<const TensorNode>(TensorNode{.name = partialName,
                                                                       .shape = partialShape,
                                                                       .dtype = partialBody->dtype,
                                                                       .kind = TensorKind::Compute,
                                                                       .axes = partialAxes,
                                                                       .body = partialBody});

  const IterVar finalAxis{makeVar(factored.name), factored.extent};
  std::vector<Expr> indices;
  for (std::size_t d = 0; d < spatialCount; ++d)
    indices.push_back(varExpr(tensor->axes[d].var));
  indices.insert(indices.begin() + factorAxis, varExpr(finalAxis.var));
  TensorNode reduced = *tensor;
  reduced.body = reduce(reduction->reducer, load(partial, indices), {finalAxis});
  return {partial, std::make_shared<const TensorNode>(std::move(reduced))};
}

} // namespace clustune::schedule
