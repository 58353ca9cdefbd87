// Sampling of candidate schedules for a task (DESIGN §7): sketches (Sketch.h) completed by
// random annotation (RandomAnnotation.h), as Ansor's initial population is. This is what the
// dataset generator measures and what evolutionary search starts from.
#pragma once

#include "graph/Task.h"
#include "schedule/Step.h"
#include "search/Candidate.h"
#include "search/GpuSample.h"
#include "search/Sketch.h"
#include "support/Random.h"
#include "te/Tensor.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace clustune::search {

struct SampleOptions {
  // Schedules for this GPU instead of the CPU (GpuSample.h); cores and vectorLanes then do not
  // apply.
  std::optional<GpuSampleOptions> gpu = {};
  int cores = 1;
  int vectorLanes = 16; // below 2: no vectorize annotations
  // Candidates drawn at most (valid or not, duplicate or not); 0 means 64 + 16 × count.
  int maxAttempts = 0;
};

// `count` distinct schedules (distinct by their JSON) of the task, each of which replays on the
// task's initial State and lowers. Candidate i is drawn from an Rng forked from `seed` by i,
// and the result is the first `count` distinct valid candidates, so the same seed gives the same
// list and sample k is the same whatever `count` is. Returns FEWER than `count` when the space
// is smaller than that, or too few distinct candidates turn up within maxAttempts (an
// element-wise task has only a handful of vector lengths and unroll steps). Throws
// clustune::Error when count is negative or the task cannot be lowered.
std::vector<std::vector<schedule::Step>>
sample(const graph::Task& task, int count, std::uint64_t seed, const SampleOptions& options = {});
std::vector<std::vector<schedule::Step>> sample(const te::Workload& workload, int count,
                                                std::uint64_t seed,
                                                const SampleOptions& options = {});

// Evolutionary search's initial population: `attempts` schedules, attempt i drawn from
// root.fork(i) and lowered on the process's thread pool, of which the valid ones that are
// distinct and not `excluded` (already measured) come back, in attempt order, whatever the
// thread count.
std::vector<Candidate>
sampleCandidates(const te::Workload& workload, const std::vector<Sketch>& sketches, int attempts,
                 const Rng& root, const SampleOptions& options,
                 const std::function<bool(const std::string& text)>& excluded = {});

} // namespace clustune::search
