// Bound inference (DESIGN §4.4): interval arithmetic on integer index expressions.
// constantBounds() gives the range of an expression over the ranges of its loop variables (the
// simplifier uses it to drop guards and fold divisions). inferRegion() gives, for a stage
// computed inside a loop of its consumer, the box of the stage that one iteration of that loop
// reads: per dimension a start that may depend on the enclosing loop variables and a constant
// extent, which is the size of the stage's local buffer.
#pragma once

#include "te/Expr.h"

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

namespace clustune::schedule {

struct Interval {
  std::int64_t min = 0;
  std::int64_t max = 0; // inclusive
};

// Loop variables and their extents: the variable runs over [0, extent).
using VarExtents = std::unordered_map<const te::VarNode*, std::int64_t>;

// Nothing when the expression is not an integer function of the given variables (a float, a
// load, an unknown variable) or when the arithmetic would overflow.
std::optional<Interval> constantBounds(const te::Expr& expr, const VarExtents& extents);

struct DimRange {
  te::Expr min;            // an expression of the fixed variables only
  std::int64_t extent = 0; // constant
};

// The region of a tensor of `shape` that `accesses` (one index list per load) touch while the
// `relaxed` loops run through their ranges and every other variable keeps one value. `fixed`
// gives the ranges of those other variables, for the fallback to constant bounds when an index
// is not affine in the relaxed variables. A dimension is never larger than the tensor's.
std::vector<DimRange> inferRegion(const std::vector<std::vector<te::Expr>>& accesses,
                                  const graph::Shape& shape, const VarExtents& fixed,
                                  const VarExtents& relaxed);

} // namespace clustune::schedule
