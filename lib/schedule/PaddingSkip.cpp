// See PaddingSkip.h. A product is zero when any factor is, so the conditions of all factors
// are conjoined; a sum is zero only when every operand is, which no guard of conjuncts
// expresses, so sums contribute nothing.
#include "schedule/PaddingSkip.h"

#include "schedule/ExprUtil.h"
#include "schedule/Simplify.h"
#include "te/Tensor.h"

#include <algorithm>

namespace clustune::schedule {
namespace {

using te::Expr;
using te::ExprKind;

bool isZero(const Expr& expr) {
  return (expr->kind == ExprKind::FloatImm && expr->floatValue == 0.0) ||
         (expr->kind == ExprKind::IntImm && expr->intValue == 0);
}

void appendConjuncts(const Expr& condition, std::vector<Expr>& conjuncts) {
  if (condition->kind == ExprKind::And) {
    appendConjuncts(condition->operands[0], conjuncts);
    appendConjuncts(condition->operands[1], conjuncts);
    return;
  }
  conjuncts.push_back(condition);
}

// The padding stage's condition for a load of it, with its axes replaced by the load's
// indices; null when `load` reads no padding stage.
Expr loadedPaddingCondition(const Expr& load) {
  const te::TensorNode& tensor = *load->tensor;
  if (!tensor.body || tensor.body->kind != ExprKind::Select || !isZero(tensor.body->operands[2]))
    return nullptr;
  VarMap indices;
  for (std::size_t d = 0; d < tensor.axes.size(); ++d)
    indices[tensor.axes[d].var.get()] = load->operands[d];
  return substitute(tensor.body->operands[0], indices);
}

void collect(const Expr& term, std::vector<Expr>& conjuncts) {
  Expr condition;
  switch (term->kind) {
  case ExprKind::Mul:
    collect(term->operands[0], conjuncts);
    collect(term->operands[1], conjuncts);
    return;
  case ExprKind::Select:
    if (!isZero(term->operands[2]))
      return;
    condition = term->operands[0];
    collect(term->operands[1], conjuncts);
    break;
  case ExprKind::Load:
    condition = loadedPaddingCondition(term);
    break;
  default:
    return;
  }
  // A condition on data (a gather's index) would put a load into the guard.
  if (condition && !containsLoad(condition))
    appendConjuncts(condition, conjuncts);
}

} // namespace

std::vector<Expr> paddingConditions(const Expr& term) {
  std::vector<Expr> conjuncts;
  collect(term, conjuncts);
  return conjuncts;
}

PaddingGuards placePaddingGuards(const Expr& term, const std::vector<GuardedLoop>& loops,
                                 std::size_t firstReduce, const VarExtents& enclosingExtents,
                                 const std::vector<te::ForKind>& enclosingKinds) {
  PaddingGuards guards{.byPosition = std::vector<std::vector<Expr>>(loops.size() + 1)};
  if (std::find(enclosingKinds.begin(), enclosingKinds.end(), te::ForKind::Vectorized) !=
      enclosingKinds.end())
    return guards;
  std::size_t innerReduce = loops.size();
  bool spatialInside = false;
  for (std::size_t position = firstReduce + 1; position < loops.size(); ++position) {
    if (loops[position].reduce && spatialInside) {
      innerReduce = position;
      break;
    }
    spatialInside = spatialInside || !loops[position].reduce;
  }
  VarExtents extents = enclosingExtents;
  for (const GuardedLoop& loop : loops)
    extents[loop.var] = loop.extent;

  for (const Expr& conjunct : paddingConditions(term)) {
    // Simplified first: the variables of loops of one iteration, which every split leaves in
    // the indices, must not decide where the guard goes.
    const Expr condition = simplify(conjunct, extents);
    if (condition->kind == ExprKind::IntImm)
      continue; // decided by the loop ranges
    std::size_t wrapped = firstReduce;
    allVariables(condition, [&](const te::VarNode* var) {
      for (std::size_t position = 0; position < loops.size(); ++position)
        if (loops[position].var == var)
          wrapped = std::max(wrapped, position + 1);
      return true;
    });
    if (wrapped > innerReduce)
      continue;
    std::int64_t covered = 1;
    for (std::size_t position = wrapped; position < loops.size(); ++position)
      if (loops[position].kind != te::ForKind::Vectorized)
        covered *= loops[position].extent;
    if (covered < kMinSkippedStatements)
      continue;
    if (std::any_of(loops.begin(), loops.begin() + static_cast<std::ptrdiff_t>(wrapped),
                    [](const GuardedLoop& loop) { return loop.kind == te::ForKind::Vectorized; }))
      continue;
    guards.byPosition[wrapped].push_back(condition);
  }
  return guards;
}

} // namespace clustune::schedule
