// See DagRewrite.h: the tensors of rfactor, after TVM's Schedule::rfactor. The reduce loops of
// the stage (split and fused as the steps before left them) become the partial tensor's
// iteration space: the factored loop a spatial dimension, the others its reduce axes, and each
// original reduce axis an index expression of those loops, recombined exactly as lowering
// recombines loops into axes.
#include "schedule/DagRewrite.h"
#include "schedule/ExprUtil.h"

#include <cassert>

namespace clustune::schedule {

using namespace te;

namespace {

std::int64_t product(const std::vector<std::int64_t>& factors) {
  std::int64_t result = 1;
  for (std::int64_t factor : factors)
    result *= factor;
  return result;
}

// The value of every iterator reachable from the current loops, given the loops' values, and
// the conditions under which the loops name a point inside every split iterator (a split whose
// factors do not divide runs past its parent's extent).
void recombine(const Stage& stage, std::vector<Expr>& values, std::vector<Expr>& guards) {
  // Later relations consume the outputs of earlier ones: in reverse order every relation's
  // outputs already have values.
  for (auto relation = stage.relations.rbegin(); relation != stage.relations.rend(); ++relation) {
    if (relation->kind == IteratorRelation::Kind::Split) {
      const int parent = relation->inputs[0];
      Expr value = intImm(0);
      std::int64_t stride = 1;
      for (std::size_t k = relation->outputs.size(); k-- > 0;) {
        value = values[relation->outputs[k]] * intImm(stride) + value;
        stride *= stage.iterators[relation->outputs[k]].extent;
      }
      values[parent] = value;
      const std::int64_t parentExtent = stage.iterators[parent].extent;
      if (parentExtent % product(relation->factors) != 0)
        guards.push_back(value < intImm(parentExtent));
    } else {
      const Expr fused = values[relation->outputs[0]];
      std::int64_t stride = 1;
      for (std::size_t k = relation->inputs.size(); k-- > 0;) {
        const int part = relation->inputs[k];
        Expr value = stride == 1 ? fused : floorDiv(fused, intImm(stride));
        if (k > 0)
          value = floorMod(value, intImm(stage.iterators[part].extent));
        values[part] = value;
        stride *= stage.iterators[part].extent;
      }
    }
  }
}

} // namespace

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
  std::vector<Expr> guards;
  recombine(stage, values, guards);

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
