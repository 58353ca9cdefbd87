// Integer index arithmetic for KernelEmitter (see KernelEmitter.h), emitted lean (issue 14).
//
// An unrolled tile repeats one loop body with different constants for the unrolled loop
// variables. Emitted expression by expression, every copy recomputed the whole index of every
// load and store, ((i·3584 + 0) + 896 + 224 + 0) + j·14 + 0, and the floordiv/floormod of fused
// loop variables: in a step-512 convolution tile, 56,000 of 67,000 instructions were index
// arithmetic that O3 then spent most of its time removing again. Here:
// - an int64 sum is gathered into Σ coefficient·value + constant, where unrolled loop variables
//   (constants in each copy) fold into the constant, so that only the part that varies at run
//   time is emitted, shared by the copies, and each copy adds its own constant;
// - its operations are numbered (ValueNumbering.cpp), so copies share what they have in common.
// Reassociating int64 index arithmetic is exact: indices never wrap.
#include "codegen/llvm/KernelEmitter.h"

#include <algorithm>
#include <cassert>

namespace clustune::codegen {

using te::Expr;
using te::ExprKind;

namespace {

bool isIntImm(const Expr& expr) {
  return expr->kind == ExprKind::IntImm;
}

} // namespace

void KernelEmitter::gatherAffineTerms(const Expr& expr, std::int64_t coefficient,
                                      AffineValue& sum) {
  const te::ExprNode& node = *expr;
  switch (node.kind) {
  case ExprKind::IntImm:
    sum.constant += coefficient * node.intValue;
    return;
  case ExprKind::Add:
    gatherAffineTerms(node.operands[0], coefficient, sum);
    gatherAffineTerms(node.operands[1], coefficient, sum);
    return;
  case ExprKind::Sub:
    gatherAffineTerms(node.operands[0], coefficient, sum);
    gatherAffineTerms(node.operands[1], -coefficient, sum);
    return;
  case ExprKind::Mul:
    if (isIntImm(node.operands[1])) {
      gatherAffineTerms(node.operands[0], coefficient * node.operands[1]->intValue, sum);
      return;
    }
    if (isIntImm(node.operands[0])) {
      gatherAffineTerms(node.operands[1], coefficient * node.operands[0]->intValue, sum);
      return;
    }
    break;
  default:
    break;
  }
  if (coefficient == 0)
    return; // integer expressions have no effects to keep
  // A product of two variables is an atom; emitExpr would come back here.
  llvm::Value* value = node.kind == ExprKind::Mul ? emitArithmetic(node) : emitExpr(expr);
  if (auto* constant = llvm::dyn_cast<llvm::ConstantInt>(value)) {
    sum.constant += coefficient * constant->getSExtValue();
    return;
  }
  auto same = std::find_if(sum.terms.begin(), sum.terms.end(),
                           [&](const AffineValue::Term& term) { return term.value == value; });
  if (same != sum.terms.end())
    same->coefficient += coefficient;
  else
    sum.terms.push_back({value, coefficient});
}

llvm::Value* KernelEmitter::emitIntegerSum(const Expr& expr) {
  assert(expr->dtype == graph::DataType::Int64);
  AffineValue sum;
  gatherAffineTerms(expr, 1, sum);
  std::erase_if(sum.terms, [](const AffineValue::Term& term) { return term.coefficient == 0; });
  // In the expression's own order (lowering writes outer loops first, so LICM finds the
  // invariant partial sums of inner loops), vector terms last.
  std::stable_partition(sum.terms.begin(), sum.terms.end(), [](const AffineValue::Term& term) {
    return !term.value->getType()->isVectorTy();
  });

  const auto add = [&](llvm::Value* left, llvm::Value* right) {
    matchLanes(left, right);
    return numbered(static_cast<int>(ExprKind::Add), left, right,
                    [&] { return builder_.CreateAdd(left, right, "", false, true); });
  };
  llvm::Value* total = nullptr;
  const auto accumulate = [&](llvm::Value* term) { total = total ? add(total, term) : term; };
  // The constant joins the scalar part, if any, before the vector terms: a gather's lane
  // indices stay splat(scalar) + <lane offsets>, which LLVM narrows to 32-bit indices.
  bool constantAdded = sum.constant == 0;
  for (const AffineValue::Term& term : sum.terms) {
    if (!constantAdded && total && term.value->getType()->isVectorTy()) {
      accumulate(builder_.getInt64(sum.constant));
      constantAdded = true;
    }
    if (term.coefficient == 1) {
      accumulate(term.value);
      continue;
    }
    llvm::Value* factor = lanesOf(builder_.getInt64(term.coefficient), term.value);
    accumulate(numbered(static_cast<int>(ExprKind::Mul), term.value, factor,
                        [&] { return builder_.CreateMul(term.value, factor, "", false, true); }));
  }
  if (!constantAdded)
    accumulate(builder_.getInt64(sum.constant));
  return total ? total : builder_.getInt64(0);
}

} // namespace clustune::codegen
