// Random annotation (DESIGN §7), after Ansor's InitPopulation rules: turns a sketch into a
// complete schedule by drawing its tile sizes, where non-tiled stages are computed, which loops
// run in parallel, which loop is vectorized and how far inner loops are unrolled. Every draw
// comes from the caller's Rng, so one Rng state gives one schedule.
#pragma once

#include "schedule/Step.h"
#include "search/Sketch.h"
#include "support/Random.h"
#include "te/Tensor.h"

#include <cstdint>
#include <vector>

namespace clustune::search {

struct AnnotationOptions {
  int cores = 1;
  // Vector width in elements; below 2 nothing is vectorized (a target without SIMD).
  int vectorLanes = 16;
};

// Ansor's max_innermost_split_factor: the innermost tile, which is vectorized, stays this short.
constexpr std::int64_t kMaxInnermostFactor = 64;
// Ansor's auto_unroll_max_step choices for CPU.
inline constexpr int kAutoUnrollChoices[] = {0, 16, 64, 512};

// The steps of one random completion of `sketch`. Throws schedule::InvalidScheduleError when a
// drawn step does not apply (the sketch does not fit the workload).
std::vector<schedule::Step> annotateSketch(const te::Workload& workload, const Sketch& sketch,
                                           const AnnotationOptions& options, Rng& rng);

// The divisors of `extent` that are at most `limit`, ascending.
std::vector<std::int64_t> divisorsUpTo(std::int64_t extent, std::int64_t limit);

// Factors of `extent` for a split into `parts` loops, outermost factor first (the outermost
// loop's extent is implied): an exact factorisation drawn level by level from the innermost,
// whose factor is at most kMaxInnermostFactor.
std::vector<std::int64_t> randomFactors(std::int64_t extent, int parts, Rng& rng);

} // namespace clustune::search
