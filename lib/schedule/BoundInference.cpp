// See BoundInference.h. Region inference keeps each index as (affine start, constant extent):
// sums, differences, products by constants, and floordiv/floormod by constants stay exact
// when the start is aligned to the divisor and otherwise over-approximate by at most one
// value; anything else falls back to constant bounds over every variable's whole range, which
// is always safe but computes more of the producer than one iteration needs.
#include "schedule/BoundInference.h"

#include "schedule/Affine.h"
#include "schedule/ExprUtil.h"

#include <algorithm>
#include <cassert>
#include <limits>

namespace clustune::schedule {

using namespace te;

namespace {

using Bound = std::optional<Interval>;

bool isIntegerType(DataType dtype) {
  return dtype != DataType::Bool && !graph::isFloatingPoint(dtype);
}

std::optional<std::int64_t> add(std::int64_t a, std::int64_t b) {
  std::int64_t result;
  if (__builtin_add_overflow(a, b, &result))
    return std::nullopt;
  return result;
}

std::optional<std::int64_t> subtract(std::int64_t a, std::int64_t b) {
  std::int64_t result;
  if (__builtin_sub_overflow(a, b, &result))
    return std::nullopt;
  return result;
}

std::optional<std::int64_t> multiply(std::int64_t a, std::int64_t b) {
  std::int64_t result;
  if (__builtin_mul_overflow(a, b, &result))
    return std::nullopt;
  return result;
}

std::int64_t truncatingDivide(std::int64_t a, std::int64_t b) {
  return a / b;
}

// The interval of f(a, b) when f is monotone in each argument on the given boxes, so that its
// extremes lie at the corners.
template <class F>
Bound corners(const Interval& a, const Interval& b, F function) {
  std::optional<std::int64_t> values[] = {function(a.min, b.min), function(a.min, b.max),
                                          function(a.max, b.min), function(a.max, b.max)};
  Interval result{.min = 0, .max = 0};
  bool first = true;
  for (const auto& value : values) {
    if (!value)
      return std::nullopt;
    result.min = first ? *value : std::min(result.min, *value);
    result.max = first ? *value : std::max(result.max, *value);
    first = false;
  }
  return result;
}

Bound floorModBounds(const Interval& a, const Interval& b) {
  if (b.min == b.max && b.min > 0) {
    const std::int64_t c = b.min;
    if (floorDivide(a.min, c) == floorDivide(a.max, c))
      return Interval{floorModulo(a.min, c), floorModulo(a.max, c)};
    return Interval{0, c - 1};
  }
  if (b.min > 0) {
    if (a.min >= 0 && a.max < b.min)
      return a;
    return Interval{0, b.max - 1};
  }
  return std::nullopt;
}

} // namespace

std::optional<Interval> constantBounds(const Expr& expr, const VarExtents& extents) {
  const DataType dtype = expr->dtype;
  if (dtype == DataType::Bool) {
    if (expr->kind == ExprKind::IntImm)
      return Interval{expr->intValue, expr->intValue};
    return Interval{0, 1};
  }
  if (!isIntegerType(dtype))
    return std::nullopt;
  auto operand = [&](int i) { return constantBounds(expr->operands[i], extents); };
  switch (expr->kind) {
  case ExprKind::IntImm:
    return Interval{expr->intValue, expr->intValue};
  case ExprKind::Variable: {
    auto found = extents.find(expr->var.get());
    if (found == extents.end() || found->second < 1)
      return std::nullopt;
    return Interval{0, found->second - 1};
  }
  case ExprKind::Cast:
    if (isIntegerType(expr->operands[0]->dtype) || expr->operands[0]->dtype == DataType::Bool)
      return operand(0);
    return std::nullopt;
  case ExprKind::Select: {
    Bound whenTrue = operand(1), whenFalse = operand(2);
    if (!whenTrue || !whenFalse)
      return std::nullopt;
    return Interval{std::min(whenTrue->min, whenFalse->min),
                    std::max(whenTrue->max, whenFalse->max)};
  }
  default:
    break;
  }
  if (expr->operands.size() != 2)
    return std::nullopt;
  Bound a = operand(0), b = operand(1);
  if (!a || !b)
    return std::nullopt;
  switch (expr->kind) {
  case ExprKind::Add: {
    auto low = add(a->min, b->min), high = add(a->max, b->max);
    if (!low || !high)
      return std::nullopt;
    return Interval{*low, *high};
  }
  case ExprKind::Sub: {
    auto low = subtract(a->min, b->max), high = subtract(a->max, b->min);
    if (!low || !high)
      return std::nullopt;
    return Interval{*low, *high};
  }
  case ExprKind::Mul:
    return corners(*a, *b, multiply);
  case ExprKind::FloorDiv:
  case ExprKind::Div:
    if (b->min <= 0 && b->max >= 0)
      return std::nullopt;
    return corners(*a, *b, [&](std::int64_t x, std::int64_t y) -> std::optional<std::int64_t> {
      if (x == std::numeric_limits<std::int64_t>::min() && y == -1)
        return std::nullopt;
      return expr->kind == ExprKind::FloorDiv ? floorDivide(x, y) : truncatingDivide(x, y);
    });
  case ExprKind::FloorMod:
    return floorModBounds(*a, *b);
  case ExprKind::Min:
    return Interval{std::min(a->min, b->min), std::min(a->max, b->max)};
  case ExprKind::Max:
    return Interval{std::max(a->min, b->min), std::max(a->max, b->max)};
  default:
    return std::nullopt;
  }
}

namespace {

struct SymbolicRange {
  AffineForm min; // affine in the fixed variables
  std::int64_t extent = 1;
};

class RegionInference {
public:
  RegionInference(const VarExtents& fixed, const VarExtents& relaxed) : relaxed_(relaxed) {
    all_ = fixed;
    all_.insert(relaxed.begin(), relaxed.end());
  }

  // The range of one index, exact or over-approximated; nothing when not even constant bounds
  // are known.
  std::optional<SymbolicRange> range(const Expr& index) const {
    if (!isIntegerType(index->dtype) || containsLoad(index))
      return std::nullopt;
    if (auto symbolic = symbolicRange(index))
      return symbolic;
    return constantRange(index);
  }

  // The same range with a constant start.
  std::optional<Interval> toConstant(const SymbolicRange& range) const {
    if (range.min.isConstant())
      return Interval{range.min.constant, range.min.constant + range.extent - 1};
    auto start = constantBounds(fromAffine(range.min), all_);
    if (!start)
      return std::nullopt;
    return Interval{start->min, start->max + range.extent - 1};
  }

private:
  bool isRelaxed(const VarNode* var) const { return relaxed_.count(var) > 0; }

  std::optional<SymbolicRange> constantRange(const Expr& index) const {
    auto bounds = constantBounds(index, all_);
    if (!bounds)
      return std::nullopt;
    return SymbolicRange{constantForm(bounds->min), bounds->max - bounds->min + 1};
  }

  std::optional<std::int64_t> constantOperand(const Expr& expr) const {
    AffineForm form = toAffine(expr);
    if (!form.isConstant())
      return std::nullopt;
    return form.constant;
  }

  // Called only on load-free indices (range() checks) and their parts.
  std::optional<SymbolicRange> symbolicRange(const Expr& expr) const {
    if (allVariables(expr, [&](const VarNode* var) { return !isRelaxed(var); }))
      return SymbolicRange{toAffine(expr), 1};
    switch (expr->kind) {
    case ExprKind::Variable:
      return SymbolicRange{constantForm(0), relaxed_.at(expr->var.get())};
    case ExprKind::Add:
    case ExprKind::Sub: {
      auto a = symbolicRange(expr->operands[0]);
      auto b = symbolicRange(expr->operands[1]);
      if (!a || !b)
        return std::nullopt;
      const std::int64_t extent = a->extent + b->extent - 1;
      if (expr->kind == ExprKind::Add)
        return SymbolicRange{a->min + b->min, extent};
      return SymbolicRange{a->min - b->min - constantForm(b->extent - 1), extent};
    }
    case ExprKind::Mul: {
      auto a = symbolicRange(expr->operands[0]);
      auto b = symbolicRange(expr->operands[1]);
      if (!a || !b)
        return std::nullopt;
      if (a->extent == 1 && a->min.isConstant())
        std::swap(a, b);
      if (b->extent != 1 || !b->min.isConstant())
        return std::nullopt;
      const std::int64_t factor = b->min.constant;
      const std::int64_t magnitude = factor < 0 ? -factor : factor;
      AffineForm start = factor < 0 ? a->min + constantForm(a->extent - 1) : a->min;
      return SymbolicRange{start.scaled(factor), (a->extent - 1) * magnitude + 1};
    }
    case ExprKind::FloorDiv:
    case ExprKind::FloorMod:
      return divisionRange(expr);
    default:
      return std::nullopt;
    }
  }

  // floor(v / c) and v mod c for v = c·D + R + x with x in [0, extent): the multiple of c
  // passes through the division exactly; only the remainder R needs care.
  std::optional<SymbolicRange> divisionRange(const Expr& expr) const {
    auto divisor = constantOperand(expr->operands[1]);
    auto a = symbolicRange(expr->operands[0]);
    if (!divisor || *divisor <= 0 || !a)
      return std::nullopt;
    const std::int64_t c = *divisor;
    AffineForm quotient, remainder;
    for (const AffineTerm& term : a->min.terms) {
      if (term.coefficient % c == 0)
        quotient.add(term.atom, term.coefficient / c);
      else
        remainder.add(term.atom, term.coefficient);
    }
    quotient.constant = floorDivide(a->min.constant, c);
    remainder.constant = floorModulo(a->min.constant, c);
    const DataType dtype = expr->dtype;
    if (expr->kind == ExprKind::FloorDiv) {
      if (remainder.isConstant())
        return SymbolicRange{quotient, floorDivide(remainder.constant + a->extent - 1, c) + 1};
      AffineForm start = quotient;
      start.add(floorDiv(fromAffine(remainder, dtype), intImm(c, dtype)), 1);
      return SymbolicRange{start, (a->extent - 1 + c - 1) / c + 1};
    }
    if (remainder.isConstant()) {
      if (remainder.constant + a->extent - 1 < c)
        return SymbolicRange{remainder, a->extent};
      return SymbolicRange{constantForm(0), c};
    }
    if (a->extent == 1) {
      AffineForm start;
      start.add(floorMod(fromAffine(remainder, dtype), intImm(c, dtype)), 1);
      return SymbolicRange{start, 1};
    }
    return SymbolicRange{constantForm(0), c};
  }

  const VarExtents& relaxed_;
  VarExtents all_;
};

} // namespace

std::vector<DimRange> inferRegion(const std::vector<std::vector<Expr>>& accesses,
                                  const graph::Shape& shape, const VarExtents& fixed,
                                  const VarExtents& relaxed) {
  RegionInference inference(fixed, relaxed);
  std::vector<DimRange> region;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    const SymbolicRange whole{constantForm(0), shape[d]};
    std::optional<SymbolicRange> merged;
    for (const std::vector<Expr>& access : accesses) {
      assert(access.size() == shape.size());
      std::optional<SymbolicRange> range = inference.range(access[d]);
      if (!range) {
        merged = whole;
        break;
      }
      if (!merged) {
        merged = range;
        continue;
      }
      const AffineForm offset = range->min - merged->min;
      if (offset.isConstant()) {
        const std::int64_t begin = std::min<std::int64_t>(0, offset.constant);
        const std::int64_t end = std::max(merged->extent, offset.constant + range->extent);
        merged = SymbolicRange{merged->min + constantForm(begin), end - begin};
        continue;
      }
      auto left = inference.toConstant(*merged), right = inference.toConstant(*range);
      if (!left || !right) {
        merged = whole;
        break;
      }
      const std::int64_t low = std::min(left->min, right->min);
      merged = SymbolicRange{constantForm(low), std::max(left->max, right->max) - low + 1};
    }
    if (!merged || merged->extent >= shape[d]) {
      merged = whole;
    } else if (merged->min.isConstant()) {
      // Reads outside the tensor sit under guards that never pass; do not compute them.
      const std::int64_t low = std::clamp<std::int64_t>(merged->min.constant, 0, shape[d] - 1);
      const std::int64_t high =
          std::clamp<std::int64_t>(merged->min.constant + merged->extent - 1, low, shape[d] - 1);
      merged = SymbolicRange{constantForm(low), high - low + 1};
    }
    region.push_back({fromAffine(merged->min), merged->extent});
  }
  return region;
}

} // namespace clustune::schedule
