// Mutations of evolutionary search (DESIGN §7, REFERENCES.md "Ansor"): small edits of a
// schedule's steps that keep its sketch, after Ansor's mutation rules on CPU:
//   - tile size (weight 0.90): move a divisor of one tile level's factor to another level of
//     the same tiled axis; a fused consumer's splits follow (Sketch.h, setTileFactors);
//   - auto-unroll (0.04): give one stage another auto_unroll_max_step;
//   - compute location (0.05): move a stage that random annotation may place (a non-output
//     stage with one consumer) to root or to another outer spatial loop of its consumer;
//   - parallel (0.01): fuse more or fewer outer loops into a stage's parallel loop.
// A mutation returns the edited steps, or nullopt when it has nothing to change in this
// schedule; whether the result replays and lowers is for the caller to check (makeCandidate).
#pragma once

#include "schedule/Step.h"
#include "search/RandomAnnotation.h"
#include "search/Sketch.h"
#include "support/Random.h"
#include "te/Tensor.h"

#include <optional>
#include <vector>

namespace clustune::search {

struct MutationWeights {
  double tileSize = 0.90;
  double autoUnroll = 0.04;
  double computeLocation = 0.05;
  double parallel = 0.01;
};

using Steps = std::vector<schedule::Step>;

// The index of the sketch that `steps` complete (completesSketch), or -1 (a default or
// hand-written schedule): only completions of a sketch get tile and compute-location
// mutations.
int findSketch(const std::vector<Sketch>& sketches, const Steps& steps);

std::optional<Steps> mutateTileSize(const Sketch& sketch, const Steps& steps, Rng& rng);
std::optional<Steps> mutateAutoUnroll(const te::Workload& workload, const Steps& steps, Rng& rng);
std::optional<Steps> mutateComputeLocation(const te::Workload& workload, const Sketch& sketch,
                                           const Steps& steps, Rng& rng);
std::optional<Steps> mutateParallel(const te::Workload& workload, const Steps& steps, Rng& rng);

// One mutation chosen by `weights` and applied; `sketch` is null for a schedule that completes
// no sketch. Returns nullopt when the chosen mutation does not apply.
std::optional<Steps> mutate(const te::Workload& workload, const Sketch* sketch, const Steps& steps,
                            const MutationWeights& weights, Rng& rng);

} // namespace clustune::search
