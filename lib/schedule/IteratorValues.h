// The values of a stage's axes in terms of its current loops, through the split and fuse
// relations (TVM's PassUpIndex): a split parent is Σ part·stride, a fused part is the fused
// value divided and taken modulo back apart. Lowering uses it to index a stage's body from its
// loop variables, rfactor to write the original reduce axes in terms of the remaining loops.
#pragma once

#include "schedule/State.h"
#include "te/Expr.h"

#include <cstdint>
#include <vector>

namespace clustune::schedule {

// The condition that a split whose factors do not divide its parent's extent adds: the
// recombined parent value stays inside the parent.
struct SplitGuard {
  te::Expr condition;
  IteratorKind kind = IteratorKind::Spatial; // the parent's
};

// `values` is indexed by iterator id and holds the value of every current loop; on return it
// also holds every iterator the loops derive from, down to the axes. `extents` (by iterator id)
// are the extents to recombine with: the stage's own, or those lowering recomputed for a
// region.
std::vector<SplitGuard> recombineIteratorValues(const Stage& stage,
                                                const std::vector<std::int64_t>& extents,
                                                std::vector<te::Expr>& values);

} // namespace clustune::schedule
