// See Affine.h.
#include "schedule/Affine.h"

#include "schedule/ExprUtil.h"

#include <algorithm>

namespace clustune::schedule {

using namespace te;

void AffineForm::add(const Expr& atom, std::int64_t coefficient) {
  if (atom->kind == ExprKind::IntImm) {
    constant += atom->intValue * coefficient;
    return;
  }
  for (auto term = terms.begin(); term != terms.end(); ++term) {
    if (!structurallyEqual(term->atom, atom))
      continue;
    term->coefficient += coefficient;
    if (term->coefficient == 0)
      terms.erase(term);
    return;
  }
  if (coefficient != 0)
    terms.push_back({atom, coefficient});
}

AffineForm& AffineForm::operator+=(const AffineForm& other) {
  return addScaled(other, 1);
}

AffineForm& AffineForm::addScaled(const AffineForm& other, std::int64_t factor) {
  if (factor == 0)
    return *this;
  for (const AffineTerm& term : other.terms)
    add(term.atom, term.coefficient * factor);
  constant += other.constant * factor;
  return *this;
}

AffineForm AffineForm::scaled(std::int64_t factor) const {
  AffineForm result;
  if (factor == 0)
    return result;
  for (const AffineTerm& term : terms)
    result.terms.push_back({term.atom, term.coefficient * factor});
  result.constant = constant * factor;
  return result;
}

AffineForm&& AffineForm::scaleInPlace(std::int64_t factor) {
  if (factor == 0)
    terms.clear();
  for (AffineTerm& term : terms)
    term.coefficient *= factor;
  constant *= factor;
  return std::move(*this);
}

AffineForm AffineForm::operator+(const AffineForm& other) const {
  AffineForm result = *this;
  result += other;
  return result;
}

AffineForm AffineForm::operator-(const AffineForm& other) const {
  AffineForm result = *this;
  result.addScaled(other, -1);
  return result;
}

AffineForm constantForm(std::int64_t value) {
  AffineForm form;
  form.constant = value;
  return form;
}

void RecentForms::remember(Expr expr, AffineForm form) {
  entries_[next_] = {std::move(expr), std::move(form)};
  next_ = (next_ + 1) % kCapacity;
}

const AffineForm* RecentForms::find(const ExprNode* node) const {
  for (const Entry& entry : entries_)
    if (entry.expr.get() == node)
      return &entry.form;
  return nullptr;
}

AffineForm toAffine(const Expr& expr, const RecentForms* recent) {
  const bool integer = expr->dtype != DataType::Bool && !graph::isFloatingPoint(expr->dtype);
  if (integer) {
    switch (expr->kind) {
    case ExprKind::IntImm:
      return constantForm(expr->intValue);
    // Built in place rather than with + and -, which copy: this runs for every integer node
    // that simplification visits.
    case ExprKind::Add:
    case ExprKind::Sub: {
      if (const AffineForm* known = recent ? recent->find(expr.get()) : nullptr)
        return *known;
      AffineForm form = toAffine(expr->operands[0], recent);
      form.addScaled(toAffine(expr->operands[1], recent), expr->kind == ExprKind::Add ? 1 : -1);
      return form;
    }
    case ExprKind::Mul: {
      if (const AffineForm* known = recent ? recent->find(expr.get()) : nullptr)
        return *known;
      AffineForm left = toAffine(expr->operands[0], recent);
      AffineForm right = toAffine(expr->operands[1], recent);
      if (right.isConstant())
        return left.scaleInPlace(right.constant);
      if (left.isConstant())
        return right.scaleInPlace(left.constant);
      break;
    }
    default:
      break;
    }
  }
  AffineForm form;
  form.add(expr, 1);
  return form;
}

AffineForm inRebuiltOrder(AffineForm form) {
  // A positive term leads, so that "j - i" is not printed as "(0 - i) + j".
  auto positive = std::find_if(form.terms.begin(), form.terms.end(),
                               [](const AffineTerm& term) { return term.coefficient > 0; });
  if (positive != form.terms.end())
    std::rotate(form.terms.begin(), positive, positive + 1);
  return form;
}

Expr fromAffine(const AffineForm& form, DataType dtype) {
  const AffineForm ordered = inRebuiltOrder(form);
  Expr result;
  for (const AffineTerm& term : ordered.terms) {
    const std::int64_t magnitude = term.coefficient < 0 ? -term.coefficient : term.coefficient;
    Expr scaled = magnitude == 1 ? term.atom : term.atom * intImm(magnitude, dtype);
    if (!result)
      result = term.coefficient < 0 ? intImm(0, dtype) - scaled : scaled;
    else
      result = term.coefficient < 0 ? result - scaled : result + scaled;
  }
  if (!result)
    return intImm(form.constant, dtype);
  if (form.constant > 0)
    return result + intImm(form.constant, dtype);
  if (form.constant < 0)
    return result - intImm(-form.constant, dtype);
  return result;
}

namespace {

bool isImmediate(const Expr& expr, std::int64_t value, DataType dtype) {
  return expr->kind == ExprKind::IntImm && expr->intValue == value && expr->dtype == dtype;
}

bool isScaledAtom(const Expr& expr, const AffineTerm& term, DataType dtype) {
  const std::int64_t magnitude = term.coefficient < 0 ? -term.coefficient : term.coefficient;
  if (magnitude == 1)
    return structurallyEqual(expr, term.atom);
  return expr->kind == ExprKind::Mul && expr->dtype == dtype &&
         structurallyEqual(expr->operands[0], term.atom) &&
         isImmediate(expr->operands[1], magnitude, dtype);
}

} // namespace

// Walks `expr` from the top the way fromAffine builds it from the bottom. None of te's integer
// folds applies to what fromAffine builds (no atom is an immediate, no immediate is 0 or 1 where
// a fold would take it), so matching the unfolded shape is matching fromAffine's result.
bool rebuildsAs(const Expr& expr, const AffineForm& form, DataType dtype) {
  const std::size_t count = form.terms.size();
  if (count == 0)
    return isImmediate(expr, form.constant, dtype);
  // fromAffine's order: the first positive term, then the others in order.
  std::size_t leader = 0;
  while (leader < count && form.terms[leader].coefficient <= 0)
    ++leader;
  if (leader == count)
    leader = 0;
  const auto termAt = [&](std::size_t position) -> const AffineTerm& {
    if (position == 0)
      return form.terms[leader];
    return form.terms[position <= leader ? position - 1 : position];
  };
  const auto isNode = [&](const Expr& node, ExprKind kind) {
    return node->kind == kind && node->dtype == dtype;
  };
  const Expr* chain = &expr;
  if (form.constant != 0) {
    const bool add = form.constant > 0;
    if (!isNode(*chain, add ? ExprKind::Add : ExprKind::Sub) ||
        !isImmediate((*chain)->operands[1], add ? form.constant : -form.constant, dtype))
      return false;
    chain = &(*chain)->operands[0];
  }
  for (std::size_t position = count - 1; position > 0; --position) {
    const AffineTerm& term = termAt(position);
    if (!isNode(*chain, term.coefficient < 0 ? ExprKind::Sub : ExprKind::Add) ||
        !isScaledAtom((*chain)->operands[1], term, dtype))
      return false;
    chain = &(*chain)->operands[0];
  }
  const AffineTerm& first = termAt(0);
  if (first.coefficient > 0)
    return isScaledAtom(*chain, first, dtype);
  return isNode(*chain, ExprKind::Sub) && isImmediate((*chain)->operands[0], 0, dtype) &&
         isScaledAtom((*chain)->operands[1], first, dtype);
}

std::int64_t floorDivide(std::int64_t value, std::int64_t divisor) {
  std::int64_t quotient = value / divisor;
  if (value % divisor != 0 && ((value < 0) != (divisor < 0)))
    --quotient;
  return quotient;
}

std::int64_t floorModulo(std::int64_t value, std::int64_t divisor) {
  return value - floorDivide(value, divisor) * divisor;
}

} // namespace clustune::schedule
