// Transferring a schedule from one task to a sibling task: two tasks whose heavy stages (their
// reductions) compute the same thing on the same shapes, and that differ in what surrounds
// them, such as a convolution followed by ReLU and the same convolution followed by a residual
// addition and ReLU (ResNet's two block endings). A good schedule of one is usually good for
// the other, and the tuner measures the fastest schedules of a task's siblings early in the
// task's rounds (the idea of Gibson and Cano's transfer-tuning, within one tuning run): a task
// that the cost model knows little about then does not depend on its one round of 64
// candidates finding what its sibling already found.
//
// A schedule names stages and workload inputs by index, so it is rewritten, not copied: the
// stages of the two workloads are aligned by what they compute (stage role, shape, reduction
// extents, whether it is an output; the element-wise outputs of one shape align whatever their
// operators), the alignment is followed through the steps that insert
// stages (cache_write, cache_read, rfactor), steps on stages the recipient lacks are dropped,
// and stages only the recipient has are inlined.
//
// Relatives are a looser kinship: reductions of one kind (same roles and ranks) on other shapes,
// such as ResNet's 3×3 convolutions at 56×56 and at 14×14. A relative's schedule is rewritten
// the same way and its split factors are then fitted to the recipient's extents (each factor,
// innermost first, becomes the largest divisor of what is left of the extent that does not
// exceed it), so that the register tile, the vector width and the unrolling carry over while
// the outer tiles shrink where the recipient is smaller.
#pragma once

#include "schedule/Step.h"
#include "te/Tensor.h"

#include <optional>
#include <string>
#include <vector>

namespace clustune::search {

// What two workloads must share for schedules to transfer between them: their reduction stages
// (role, shape, reduce extents, the shapes they read, and whether they are outputs, which the
// sketches schedule unlike reductions with an element-wise consumer). Empty for a workload without
// a reduction, whose schedules are cheap to search and are not transferred.
std::string transferKey(const te::Workload& workload);

// What two workloads must share for schedules to be adapted between them (adaptSchedule): the
// roles of their reduction stages, whether they are outputs, the ranks of their shapes and of
// what they read, and the number of reduce axes. Empty for a workload without a reduction.
std::string relativeKey(const te::Workload& workload);

// `steps`, a schedule of `from`, rewritten for `to`; nullopt where the stages do not align (a
// reduction or output of one has no counterpart in the other, or a step depends on a stage the
// recipient lacks). The result is not replayed here: makeCandidate() tells whether it applies.
std::optional<std::vector<schedule::Step>>
transferSchedule(const te::Workload& from, const std::vector<schedule::Step>& steps,
                 const te::Workload& to);

// `steps`, a schedule of `from`, rewritten for `to`, a workload of the same relativeKey, with
// every split's factors fitted to the recipient's extents; nullopt where the stages do not
// align or the rewritten schedule does not replay on `to`.
std::optional<std::vector<schedule::Step>> adaptSchedule(const te::Workload& from,
                                                         const std::vector<schedule::Step>& steps,
                                                         const te::Workload& to);

} // namespace clustune::search
