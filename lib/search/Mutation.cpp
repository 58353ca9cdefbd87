// See Mutation.h. Mutations edit the step list rather than a State, because a schedule is its
// steps: the sketch's prefix (inlining, caching, tiling, fusion) stays, and the edits touch only
// what random annotation chose, in the order RandomAnnotation.cpp emits it: compute locations
// right after the prefix, then per stage its vectorize split, parallel fusion and pragma.
#include "search/Mutation.h"

#include "schedule/State.h"

#include <algorithm>
#include <cassert>
#include <iterator>
#include <numeric>

namespace clustune::search {
namespace {

using schedule::Annotation;
using schedule::AnnotationStep;
using schedule::ComputeAtStep;
using schedule::ComputeLocationKind;
using schedule::FuseStep;
using schedule::IteratorKind;
using schedule::PragmaStep;
using schedule::Stage;
using schedule::State;
using schedule::Step;

std::optional<State> replayPrefix(const te::Workload& workload, const Steps& steps,
                                  std::size_t count) {
  try {
    return schedule::replay(workload, Steps(steps.begin(), steps.begin() + count));
  } catch (const Error&) {
    return std::nullopt;
  }
}

// The loop positions a stage computed at `consumer` may go to: its outer spatial loops, never
// a reduce loop (the stage would be recomputed per reduction step) nor the innermost loop (the
// one to vectorize); -1 is root. As RandomAnnotation's compute-location rule.
std::vector<int> computeLocations(const Stage& consumer) {
  std::vector<int> positions = {-1};
  for (int position = 0; position + 1 < static_cast<int>(consumer.loops.size()); ++position) {
    if (consumer.loop(position).kind != IteratorKind::Spatial)
      break;
    positions.push_back(position);
  }
  return positions;
}

template <class T>
std::vector<T> without(std::vector<T> values, const T& excluded) {
  values.erase(std::remove(values.begin(), values.end(), excluded), values.end());
  return values;
}

bool isParallelOf(const Step& step, int stage) {
  const auto* annotation = std::get_if<AnnotationStep>(&step);
  return annotation && annotation->stage == stage && annotation->annotation == Annotation::Parallel;
}

// The FuseStep of the outer loops that the parallel annotation at `annotationIndex` marks, or
// -1 when the annotation marks a single loop.
int parallelFuseIndex(const Steps& steps, std::size_t annotationIndex, int stage) {
  if (annotationIndex == 0)
    return -1;
  const auto* fuse = std::get_if<FuseStep>(&steps[annotationIndex - 1]);
  if (!fuse || fuse->stage != stage || fuse->iterators.empty() || fuse->iterators.front() != 0)
    return -1;
  return static_cast<int>(annotationIndex - 1);
}

} // namespace

int findSketch(const std::vector<Sketch>& sketches, const Steps& steps) {
  for (std::size_t index = 0; index < sketches.size(); ++index)
    if (completesSketch(sketches[index], steps))
      return static_cast<int>(index);
  return -1;
}

std::optional<Steps> mutateTileSize(const Sketch& sketch, const Steps& steps, Rng& rng) {
  TileFactors factors = tileFactors(sketch, steps);
  std::vector<std::size_t> movable;
  for (std::size_t tile = 0; tile < sketch.tiles.size(); ++tile)
    if (sketch.tiles[tile].extent > 1)
      movable.push_back(tile);
  if (movable.empty())
    return std::nullopt;
  const std::size_t tile = rng.pick(movable);
  const std::int64_t extent = sketch.tiles[tile].extent;
  const std::int64_t inner = std::accumulate(factors[tile].begin(), factors[tile].end(),
                                             std::int64_t{1}, std::multiplies<std::int64_t>());
  if (inner <= 0 || extent % inner != 0)
    return std::nullopt;
  // Every level, the implied outermost one first.
  std::vector<std::int64_t> levels = {extent / inner};
  levels.insert(levels.end(), factors[tile].begin(), factors[tile].end());
  std::vector<std::size_t> sources;
  for (std::size_t level = 0; level < levels.size(); ++level)
    if (levels[level] > 1)
      sources.push_back(level);
  if (sources.empty() || levels.size() < 2)
    return std::nullopt;
  const std::size_t source = rng.pick(sources);
  std::vector<std::int64_t> divisors = divisorsUpTo(levels[source], levels[source]);
  divisors.erase(divisors.begin()); // 1 moves nothing
  const std::int64_t moved = rng.pick(divisors);
  std::vector<std::size_t> destinations(levels.size());
  std::iota(destinations.begin(), destinations.end(), std::size_t{0});
  const std::size_t destination = rng.pick(without(destinations, source));
  levels[source] /= moved;
  levels[destination] *= moved;
  if (levels.back() > kMaxInnermostFactor)
    return std::nullopt;
  factors[tile].assign(levels.begin() + 1, levels.end());
  Steps mutated = steps;
  setTileFactors(sketch, factors, mutated);
  return mutated;
}

std::optional<Steps> mutateAutoUnroll(const te::Workload& workload, const Steps& steps, Rng& rng) {
  const std::optional<State> state = replayPrefix(workload, steps, steps.size());
  if (!state)
    return std::nullopt;
  std::vector<int> stages;
  for (int stage = 0; stage < static_cast<int>(state->stages().size()); ++stage)
    if (!state->stages()[stage].isInlined() && !state->stages()[stage].loops.empty())
      stages.push_back(stage);
  if (stages.empty())
    return std::nullopt;
  const int stage = rng.pick(stages);
  const std::vector<int> choices =
      without(std::vector<int>(std::begin(kAutoUnrollChoices), std::end(kAutoUnrollChoices)),
              state->stages()[stage].autoUnrollMaxStep);
  const int value = rng.pick(choices);
  Steps mutated = steps;
  const auto pragma = std::find_if(mutated.rbegin(), mutated.rend(), [&](const Step& step) {
    const auto* found = std::get_if<PragmaStep>(&step);
    return found && found->stage == stage;
  });
  if (pragma == mutated.rend()) {
    const Step pragmaStep = PragmaStep{.stage = stage, .iterator = 0, .autoUnrollMaxStep = value};
    mutated.push_back(pragmaStep);
  } else if (value == 0) {
    mutated.erase(std::next(pragma).base());
  } else {
    std::get<PragmaStep>(*pragma).autoUnrollMaxStep = value;
  }
  return mutated;
}

std::optional<Steps> mutateComputeLocation(const te::Workload& workload, const Sketch& sketch,
                                           const Steps& steps, Rng& rng) {
  const std::size_t prefix = sketch.steps.size();
  const std::optional<State> base = replayPrefix(workload, steps, prefix);
  if (!base)
    return std::nullopt;
  // The stages random annotation may place: not outputs, at root, with one consumer at root.
  std::vector<std::pair<int, int>> movable; // (stage, consumer)
  for (int stage = 0; stage < static_cast<int>(base->stages().size()); ++stage) {
    const Stage& current = base->stages()[stage];
    if (current.isOutput() || current.location.kind != ComputeLocationKind::Root)
      continue;
    const std::vector<int> consumers = schedule::effectiveConsumers(*base, stage);
    if (consumers.size() == 1 &&
        base->stages()[consumers[0]].location.kind == ComputeLocationKind::Root)
      movable.emplace_back(stage, consumers[0]);
  }
  if (movable.empty())
    return std::nullopt;
  const auto [stage, consumer] = rng.pick(movable);
  Steps mutated = steps;
  int current = -1;
  const auto placed = std::find_if(mutated.begin() + prefix, mutated.end(), [&](const Step& step) {
    const auto* at = std::get_if<ComputeAtStep>(&step);
    return at && at->stage == stage;
  });
  if (placed != mutated.end()) {
    current = std::get<ComputeAtStep>(*placed).targetIterator;
    mutated.erase(placed);
  }
  const std::vector<int> choices = without(computeLocations(base->stages()[consumer]), current);
  if (choices.empty())
    return std::nullopt;
  const int position = rng.pick(choices);
  if (position < 0)
    return mutated;
  // Attached, the stage runs inside its consumer's loops: it keeps no parallel loop of its own.
  for (std::size_t index = mutated.size(); index-- > prefix;) {
    if (!isParallelOf(mutated[index], stage))
      continue;
    const int fuse = parallelFuseIndex(mutated, index, stage);
    mutated.erase(mutated.begin() + static_cast<std::ptrdiff_t>(index));
    if (fuse >= 0)
      mutated.erase(mutated.begin() + fuse);
    break;
  }
  // The consumer's outer loops may not be fused past the new location (random annotation fuses
  // them for its parallel loop): fusing the attach loop would carry the stage out to the fused
  // loop, so the move would change nothing.
  for (std::size_t index = prefix; index < mutated.size(); ++index) {
    auto* fuse = std::get_if<FuseStep>(&mutated[index]);
    if (!fuse || fuse->stage != consumer || fuse->iterators.empty() || fuse->iterators.front() != 0)
      continue;
    if (static_cast<int>(fuse->iterators.size()) > position + 1)
      fuse->iterators.resize(static_cast<std::size_t>(position + 1));
    if (fuse->iterators.size() == 1)
      mutated.erase(mutated.begin() + static_cast<std::ptrdiff_t>(index));
    break;
  }
  const Step computeAt =
      ComputeAtStep{.stage = stage, .targetStage = consumer, .targetIterator = position};
  mutated.insert(mutated.begin() + static_cast<std::ptrdiff_t>(prefix), computeAt);
  return mutated;
}

std::optional<Steps> mutateParallel(const te::Workload& workload, const Steps& steps, Rng& rng) {
  std::vector<std::size_t> annotations;
  for (std::size_t index = 0; index < steps.size(); ++index)
    if (const auto* annotation = std::get_if<AnnotationStep>(&steps[index]);
        annotation && annotation->annotation == Annotation::Parallel && annotation->iterator == 0)
      annotations.push_back(index);
  if (annotations.empty())
    return std::nullopt;
  const std::size_t annotationIndex = rng.pick(annotations);
  const int stage = std::get<AnnotationStep>(steps[annotationIndex]).stage;
  const int fuseIndex = parallelFuseIndex(steps, annotationIndex, stage);
  const int fused =
      fuseIndex < 0 ? 1 : static_cast<int>(std::get<FuseStep>(steps[fuseIndex]).iterators.size());
  const std::optional<State> before = replayPrefix(
      workload, steps, fuseIndex < 0 ? annotationIndex : static_cast<std::size_t>(fuseIndex));
  if (!before)
    return std::nullopt;
  // Outer spatial loops without annotations, up to and including one where a stage is
  // computed, as RandomAnnotation's parallel rule fuses them.
  const Stage& current = before->stages()[stage];
  int fusable = 0;
  while (fusable < static_cast<int>(current.loops.size())) {
    const schedule::Iterator& loop = current.loop(fusable);
    if (loop.kind != IteratorKind::Spatial || loop.annotation != Annotation::None)
      break;
    if (schedule::isAttachTarget(*before, stage, fusable++))
      break;
  }
  std::vector<int> counts;
  for (int count = 1; count <= fusable; ++count)
    if (count != fused)
      counts.push_back(count);
  if (counts.empty())
    return std::nullopt;
  const int count = rng.pick(counts);
  std::vector<int> iterators(static_cast<std::size_t>(count));
  std::iota(iterators.begin(), iterators.end(), 0);
  Steps mutated = steps;
  if (fuseIndex >= 0 && count == 1) {
    mutated.erase(mutated.begin() + fuseIndex);
  } else if (fuseIndex >= 0) {
    std::get<FuseStep>(mutated[fuseIndex]).iterators = iterators;
  } else {
    const Step fuse = FuseStep{.stage = stage, .iterators = iterators};
    mutated.insert(mutated.begin() + static_cast<std::ptrdiff_t>(annotationIndex), fuse);
  }
  return mutated;
}

std::optional<Steps> mutate(const te::Workload& workload, const Sketch* sketch, const Steps& steps,
                            const MutationWeights& weights, Rng& rng) {
  const double total =
      weights.tileSize + weights.autoUnroll + weights.computeLocation + weights.parallel;
  assert(total > 0);
  double draw = rng.uniform() * total;
  if ((draw -= weights.tileSize) < 0)
    return sketch ? mutateTileSize(*sketch, steps, rng) : std::nullopt;
  if ((draw -= weights.autoUnroll) < 0)
    return mutateAutoUnroll(workload, steps, rng);
  if ((draw -= weights.computeLocation) < 0)
    return sketch ? mutateComputeLocation(workload, *sketch, steps, rng) : std::nullopt;
  return mutateParallel(workload, steps, rng);
}

} // namespace clustune::search
