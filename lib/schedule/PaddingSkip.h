// Skipping the products with padding. A padded convolution or pooling sums a term that
// multiplies a padded element; at the border that element is the padding's 0, and the term
// adds nothing. Lowering guards the accumulation with the condition that the element lies
// inside the unpadded input, placed around the loops of the condition's innermost variable, so
// that a whole row of taps is skipped with one branch, as oneDNN's and ONNX Runtime's
// convolutions skip them. The padded element is found either as a load of a stage whose value
// is select(inside, x, 0) (a padding stage that is computed, at the root or per tile), or as
// that select itself, inlined. The guard changes no value the sum can take, except that an
// infinite or NaN weight times a padded 0 (NaN) and a sum of -0 and +0 are no longer computed.
// The stored value is left as it is (an inlined select keeps its whole condition, which LLVM
// simplifies under the guard), so the program features, which ignore guards, do not change.
//
// Where a guard would cost more than it skips, there is none, and the zeros are multiplied as
// before: inside a vectorized loop (its lanes would need a mask), around fewer than
// kMinSkippedStatements statement instances (a branch per few vector FMAs of a register tile),
// and inside Ansor's inner reduce level, the reduce loops inside the spatial loops inside the
// first reduce loop, which accumulate into the register tile (a guard there kept LLVM from
// holding the tile's accumulators in registers: ResNet-18's stride-2 and 56x56 convolutions
// ran 23-35% slower).
#pragma once

#include "schedule/BoundInference.h"
#include "te/Expr.h"
#include "te/Stmt.h"

#include <vector>

namespace clustune::schedule {

inline constexpr std::int64_t kMinSkippedStatements = 16;

// The conjuncts of "no factor of `term` is padding", in the variables of `term`'s indices;
// empty when no factor of `term` is a padded element.
std::vector<te::Expr> paddingConditions(const te::Expr& term);

// One loop of a reduction stage's nest, outermost first.
struct GuardedLoop {
  const te::VarNode* var = nullptr;
  std::int64_t extent = 0;
  te::ForKind kind = te::ForKind::Serial;
  bool reduce = false;
};

struct PaddingGuards {
  // byPosition[p]: the guards around the statement at loop position p (the loop at p, or the
  // accumulating store at p = the number of loops).
  std::vector<std::vector<te::Expr>> byPosition;
};

// Where the guards of a Sum with term `term` go in its loop nest: a guard wraps the statement
// just inside the innermost loop of its variables, but never outside the first reduce loop,
// before which the sum is initialised. `enclosing` are the extents and kinds of the loops
// around the nest (a stage computed at another's loop).
PaddingGuards placePaddingGuards(const te::Expr& term, const std::vector<GuardedLoop>& loops,
                                 std::size_t firstReduce, const VarExtents& enclosingExtents,
                                 const std::vector<te::ForKind>& enclosingKinds);

} // namespace clustune::schedule
