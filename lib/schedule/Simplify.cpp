// See Simplify.h.
#include "schedule/Simplify.h"

#include "schedule/Affine.h"
#include "schedule/ExprUtil.h"

namespace clustune::schedule {

using namespace te;

namespace {

bool isIntegerType(DataType dtype) {
  return dtype != DataType::Bool && !graph::isFloatingPoint(dtype);
}

Expr boolImm(bool value) {
  return intImm(value ? 1 : 0, DataType::Bool);
}

bool isSum(const Expr& expr) {
  return (expr->kind == ExprKind::Add || expr->kind == ExprKind::Sub ||
          expr->kind == ExprKind::Mul) &&
         isIntegerType(expr->dtype);
}

std::optional<bool> constantBool(const Expr& expr) {
  if (expr->kind != ExprKind::IntImm || expr->dtype != DataType::Bool)
    return std::nullopt;
  return expr->intValue != 0;
}

class ExprSimplifier {
public:
  explicit ExprSimplifier(const VarExtents& extents) : extents_(extents) {}

  Expr operator()(const Expr& node) const {
    const DataType dtype = node->dtype;
    switch (node->kind) {
    case ExprKind::Variable: {
      // The only value of a loop of extent 1.
      auto found = extents_.find(node->var.get());
      if (found != extents_.end() && found->second == 1)
        return intImm(0, dtype);
      return node;
    }
    case ExprKind::Add:
    case ExprKind::Sub:
    case ExprKind::Mul:
      if (isIntegerType(dtype)) {
        AffineForm form = recombineDivMod(toAffine(node, &recent_));
        Expr result = rebuildsAs(node, form, dtype) ? node : fromAffine(form, dtype);
        if (isSum(result))
          recent_.remember(result, inRebuiltOrder(std::move(form)));
        return result;
      }
      return node;
    case ExprKind::FloorDiv:
    case ExprKind::FloorMod:
      if (isIntegerType(dtype))
        return division(node);
      return node;
    case ExprKind::Min:
    case ExprKind::Max:
      if (isIntegerType(dtype))
        return minMax(node);
      return node;
    case ExprKind::Less:
    case ExprKind::LessEqual:
    case ExprKind::Greater:
    case ExprKind::GreaterEqual:
    case ExprKind::Equal:
    case ExprKind::NotEqual:
      if (isIntegerType(node->operands[0]->dtype))
        return comparison(node);
      return node;
    case ExprKind::And:
    case ExprKind::Or:
      return logic(node);
    case ExprKind::Not:
      if (auto value = constantBool(node->operands[0]))
        return boolImm(!*value);
      return node;
    default:
      return node;
    }
  }

private:
  // Whether `atom` is x // c, also in the form that (y // d) // c takes after simplification.
  static bool isQuotient(const Expr& atom, const Expr& x, std::int64_t c) {
    if (atom->kind != ExprKind::FloorDiv || atom->operands[1]->kind != ExprKind::IntImm)
      return false;
    const std::int64_t divisor = atom->operands[1]->intValue;
    if (divisor == c && structurallyEqual(atom->operands[0], x))
      return true;
    return x->kind == ExprKind::FloorDiv && x->operands[1]->kind == ExprKind::IntImm &&
           divisor == c * x->operands[1]->intValue &&
           structurallyEqual(atom->operands[0], x->operands[0]);
  }

  // (x // c)·k·c + (x mod c)·k is x·k: fused loops are divided back into their parts, and
  // flattening the parts again gives back the fused loop, a contiguous index.
  static AffineForm recombineDivMod(AffineForm form) {
    for (bool changed = true; changed;) {
      changed = false;
      for (std::size_t i = 0; i < form.terms.size() && !changed; ++i) {
        const AffineTerm remainder = form.terms[i];
        const Expr& atom = remainder.atom;
        if (atom->kind != ExprKind::FloorMod || atom->operands[1]->kind != ExprKind::IntImm ||
            atom->operands[1]->intValue <= 0)
          continue;
        const std::int64_t c = atom->operands[1]->intValue;
        for (std::size_t j = 0; j < form.terms.size(); ++j) {
          const AffineTerm quotient = form.terms[j];
          if (quotient.coefficient != remainder.coefficient * c ||
              !isQuotient(quotient.atom, atom->operands[0], c))
            continue;
          form.add(quotient.atom, -quotient.coefficient);
          form.add(atom, -remainder.coefficient);
          form += toAffine(atom->operands[0]).scaled(remainder.coefficient);
          changed = true;
          break;
        }
      }
    }
    return form;
  }

  std::optional<Interval> bounds(const Expr& expr) const { return constantBounds(expr, extents_); }

  // v // c and v mod c for v = c·Q + R: the multiple passes through; R decides the rest.
  Expr division(const Expr& node) const {
    const Expr& dividend = node->operands[0];
    const Expr& divisorExpr = node->operands[1];
    if (divisorExpr->kind != ExprKind::IntImm || divisorExpr->intValue <= 0)
      return node;
    const std::int64_t c = divisorExpr->intValue;
    const DataType dtype = node->dtype;
    const bool isDiv = node->kind == ExprKind::FloorDiv;
    if (isDiv && dividend->kind == ExprKind::FloorDiv &&
        dividend->operands[1]->kind == ExprKind::IntImm && dividend->operands[1]->intValue > 0) {
      // (x // a) // b is x // (a·b) for positive a and b.
      Expr merged =
          floorDiv(dividend->operands[0], intImm(c * dividend->operands[1]->intValue, dtype));
      return merged->kind == ExprKind::FloorDiv ? division(merged) : merged;
    }
    AffineForm quotient, remainder;
    const AffineForm form = toAffine(dividend, &recent_);
    for (const AffineTerm& term : form.terms) {
      if (term.coefficient % c == 0)
        quotient.add(term.atom, term.coefficient / c);
      else
        remainder.add(term.atom, term.coefficient);
    }
    quotient.constant = floorDivide(form.constant, c);
    remainder.constant = floorModulo(form.constant, c);
    const bool noQuotient = quotient.isConstant() && quotient.constant == 0;
    // Most divisions are already in this form; keeping the node then spares rebuilding it and,
    // since a new operand rebuilds its parent, every node above it.
    const bool restIsDividend = rebuildsAs(dividend, remainder, dtype);
    const Expr rest = restIsDividend ? dividend : fromAffine(remainder, dtype);
    if (auto range = bounds(rest)) {
      const std::int64_t low = floorDivide(range->min, c);
      if (low == floorDivide(range->max, c)) {
        if (isDiv)
          return fromAffine(quotient + constantForm(low), dtype);
        return fromAffine(remainder - constantForm(low * c), dtype);
      }
    }
    if (restIsDividend && (!isDiv || noQuotient))
      return node;
    if (!isDiv)
      return floorMod(rest, divisorExpr);
    if (noQuotient)
      return floorDiv(rest, divisorExpr);
    return fromAffine(quotient, dtype) + floorDiv(rest, divisorExpr);
  }

  Expr minMax(const Expr& node) const {
    const Expr& a = node->operands[0];
    const Expr& b = node->operands[1];
    if (structurallyEqual(a, b))
      return a;
    auto first = bounds(a), second = bounds(b);
    if (!first || !second)
      return node;
    const bool isMin = node->kind == ExprKind::Min;
    if (first->max <= second->min)
      return isMin ? a : b;
    if (second->max <= first->min)
      return isMin ? b : a;
    return node;
  }

  // Decides a comparison from the range of the difference of its sides.
  Expr comparison(const Expr& node) const {
    const DataType dtype = node->operands[0]->dtype;
    const AffineForm difference =
        toAffine(node->operands[0], &recent_) - toAffine(node->operands[1], &recent_);
    auto range = bounds(fromAffine(difference, dtype));
    if (!range)
      return node;
    const std::int64_t low = range->min, high = range->max;
    std::optional<bool> decided;
    switch (node->kind) {
    case ExprKind::Less:
      decided = high < 0 ? std::optional(true) : low >= 0 ? std::optional(false) : std::nullopt;
      break;
    case ExprKind::LessEqual:
      decided = high <= 0 ? std::optional(true) : low > 0 ? std::optional(false) : std::nullopt;
      break;
    case ExprKind::Greater:
      decided = low > 0 ? std::optional(true) : high <= 0 ? std::optional(false) : std::nullopt;
      break;
    case ExprKind::GreaterEqual:
      decided = low >= 0 ? std::optional(true) : high < 0 ? std::optional(false) : std::nullopt;
      break;
    case ExprKind::Equal:
    case ExprKind::NotEqual: {
      const bool equal = low == 0 && high == 0;
      const bool different = low > 0 || high < 0;
      if (equal || different)
        decided = (node->kind == ExprKind::Equal) == equal;
      break;
    }
    default:
      break;
    }
    return decided ? boolImm(*decided) : node;
  }

  Expr logic(const Expr& node) const {
    const bool isAnd = node->kind == ExprKind::And;
    for (int side = 0; side < 2; ++side) {
      auto value = constantBool(node->operands[side]);
      if (!value)
        continue;
      // true && x is x, false && x is false; false || x is x, true || x is true.
      if (*value == isAnd)
        return node->operands[1 - side];
      return boolImm(!isAnd);
    }
    return node;
  }

  const VarExtents& extents_;
  mutable RecentForms recent_;
};

bool isEmpty(const Stmt& stmt) {
  return stmt->kind == StmtKind::Sequence && stmt->sequence.empty();
}

// Walks the statement with one map of the enclosing loops' extents, entered and left with the
// loops: copying it at every loop cost more than simplifying the expressions inside.
class StmtSimplifier {
public:
  explicit StmtSimplifier(const VarExtents& extents) : extents_(extents) {}

  Stmt operator()(const Stmt& stmt) {
    switch (stmt->kind) {
    case StmtKind::For: {
      const te::VarNode* var = stmt->loopVar.get();
      const auto [slot, inserted] = extents_.try_emplace(var, stmt->extent);
      const std::int64_t outer = slot->second;
      slot->second = stmt->extent;
      Stmt body = (*this)(stmt->body);
      if (inserted)
        extents_.erase(var);
      else
        extents_[var] = outer;
      if (isEmpty(body))
        return body;
      return makeFor(stmt->loopVar, stmt->extent, stmt->forKind, std::move(body),
                     stmt->autoUnrollMaxStep);
    }
    case StmtKind::Store:
      return makeStore(stmt->buffer, expr(stmt->index), expr(stmt->value));
    case StmtKind::Allocate:
      return makeAllocate(stmt->buffer, (*this)(stmt->body));
    case StmtKind::IfThenElse: {
      Expr condition = expr(stmt->condition);
      if (auto value = constantBool(condition)) {
        if (*value)
          return (*this)(stmt->body);
        return stmt->elseBody ? (*this)(stmt->elseBody) : makeSequence({});
      }
      return makeIfThenElse(condition, (*this)(stmt->body),
                            stmt->elseBody ? (*this)(stmt->elseBody) : Stmt{});
    }
    case StmtKind::Sequence: {
      std::vector<Stmt> statements;
      for (const Stmt& child : stmt->sequence) {
        Stmt simplified = (*this)(child);
        if (simplified->kind == StmtKind::Sequence)
          statements.insert(statements.end(), simplified->sequence.begin(),
                            simplified->sequence.end());
        else
          statements.push_back(std::move(simplified));
      }
      return makeSequence(std::move(statements));
    }
    case StmtKind::Barrier:
      return stmt;
    }
    return stmt;
  }

private:
  Expr expr(const Expr& value) const { return rewriteBottomUp(value, ExprSimplifier(extents_)); }

  VarExtents extents_;
};

} // namespace

Expr simplify(const Expr& expr, const VarExtents& extents) {
  return rewriteBottomUp(expr, ExprSimplifier(extents));
}

Stmt simplify(const Stmt& stmt, const VarExtents& extents) {
  return StmtSimplifier(extents)(stmt);
}

} // namespace clustune::schedule
