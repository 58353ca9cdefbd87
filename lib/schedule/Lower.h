// Lowering of a scheduled workload to the loop-nest IR (DESIGN §4.4): every stage that is not
// inlined becomes a loop nest over its State iterators, whose values are recombined into the
// stage's axes (a split part contributes part·stride, a fused loop is divided back into its
// parts). Inlined stages are substituted into their consumers' loads; reductions become an
// initialising store followed by accumulating stores; a split that does not divide its extent
// leaves a guard; a stage computed at a loop of its consumer is computed, per iteration of
// that loop, over the region bound inference finds, into a local buffer allocated there. The
// result is simplified. Code generation (lib/codegen) and the loop interpreter consume it.
#pragma once

#include "schedule/State.h"
#include "te/Stmt.h"

#include <string>

namespace clustune::schedule {

// The function takes the workload's inputs, then its outputs, as buffers named after the
// tensors. Root intermediate stages live in Local buffers allocated around the whole body.
te::LoweredFunction lower(const te::Workload& workload, const State& state,
                          const std::string& functionName);

} // namespace clustune::schedule
