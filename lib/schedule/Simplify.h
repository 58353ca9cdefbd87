// The loop-nest simplifier: keeps lowered index arithmetic tidy and removes guards that bound
// inference proves always true. Integer expressions are regrouped as affine forms (so that
// (io·4 + ii)·16 − io·64 becomes ii·16), divisions by constants split off the multiples of the
// divisor ((a·c + b) // c is a when 0 ≤ b < c over the loop ranges), and comparisons whose
// outcome the loop ranges decide become constants. Floating-point arithmetic is never changed,
// so a simplified program computes bit-identical values.
#pragma once

#include "schedule/BoundInference.h"
#include "te/Stmt.h"

namespace clustune::schedule {

te::Expr simplify(const te::Expr& expr, const VarExtents& extents);
// Walks the statement with the ranges of the loops around each expression.
te::Stmt simplify(const te::Stmt& stmt, const VarExtents& extents = {});

} // namespace clustune::schedule
