// The default CPU schedule of a workload: what clustune runs before (or without) tuning, the
// "default schedules" compiler of clustune-bench, and the naive schedule whose outputs every
// measured candidate is checked against. A simple rule-based tiling that gives reasonable code:
//   - every stage that is neither an output nor a reduction is inlined into its consumers
//     (element-wise and injective stages such as padding);
//   - the innermost spatial loop is vectorized when its extent is a multiple of a vector length
//     (split off by the widest of vectorLanes, vectorLanes/2, ..., 4 that divides it);
//   - a reduction keeps its spatial loops outside and runs its reduce loops between them and
//     a small register tile of the innermost spatial loop: 4 (or 2) unrolled vectors when they
//     divide it, then the vectorized loop, so that a few vectors of outputs accumulate in
//     registers;
//   - the outer spatial loops are fused and run in parallel until their product reaches
//     4 × cores (or all of them are fused).
#pragma once

#include "schedule/Step.h"
#include "te/Tensor.h"

#include <vector>

namespace clustune::schedule {

struct CpuScheduleOptions {
  int cores = 1;
  // Widest vector in elements of the stage's type: 16 float32 lanes with AVX-512, 8 with AVX2;
  // below 4 nothing is vectorized.
  int vectorLanes = 16;
};

std::vector<Step> defaultSchedule(const te::Workload& workload, const CpuScheduleOptions& options);

} // namespace clustune::schedule
