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
  for (const AffineTerm& term : other.terms)
    add(term.atom, term.coefficient);
  constant += other.constant;
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

AffineForm AffineForm::operator+(const AffineForm& other) const {
  AffineForm result = *this;
  result += other;
  return result;
}

AffineForm AffineForm::operator-(const AffineForm& other) const {
  AffineForm result = *this;
  result += other.scaled(-1);
  return result;
}

AffineForm constantForm(std::int64_t value) {
  AffineForm form;
  form.constant = value;
  return form;
}

AffineForm toAffine(const Expr& expr) {
  const bool integer = expr->dtype != DataType::Bool && !graph::isFloatingPoint(expr->dtype);
  if (integer) {
    switch (expr->kind) {
    case ExprKind::IntImm:
      return constantForm(expr->intValue);
    case ExprKind::Add:
      return toAffine(expr->operands[0]) + toAffine(expr->operands[1]);
    case ExprKind::Sub:
      return toAffine(expr->operands[0]) - toAffine(expr->operands[1]);
    case ExprKind::Mul: {
      AffineForm left = toAffine(expr->operands[0]);
      AffineForm right = toAffine(expr->operands[1]);
      if (right.isConstant())
        return left.scaled(right.constant);
      if (left.isConstant())
        return right.scaled(left.constant);
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

Expr fromAffine(const AffineForm& form, DataType dtype) {
  // A positive term leads, so that "j - i" is not printed as "(0 - i) + j".
  std::vector<AffineTerm> terms = form.terms;
  auto positive = std::find_if(terms.begin(), terms.end(),
                               [](const AffineTerm& term) { return term.coefficient > 0; });
  if (positive != terms.end())
    std::rotate(terms.begin(), positive, positive + 1);
  Expr result;
  for (const AffineTerm& term : terms) {
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
