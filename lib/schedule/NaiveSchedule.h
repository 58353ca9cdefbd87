// The naive schedule: the reference every measured candidate's outputs are checked against
// (DESIGN §5) when a task is too large for the interpreter. It is the initial State (each stage
// a loop nest of its own, in the order of the computation, no split, inlining, vectorization
// or unrolling), with one change: each stage's outermost spatial loop of more than one
// iteration runs in parallel. Iterations of a spatial loop write disjoint outputs, so this
// cannot change a value, and the reference of a large convolution takes half the time on two
// cores (issue 14).
#pragma once

#include "schedule/Step.h"
#include "te/Tensor.h"

#include <vector>

namespace clustune::schedule {

std::vector<Step> naiveSchedule(const te::Workload& workload);

} // namespace clustune::schedule
