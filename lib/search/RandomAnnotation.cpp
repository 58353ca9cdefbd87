// See RandomAnnotation.h. The filled sketch is replayed first; the annotations are then chosen
// on the resulting State and applied as they are chosen, like the default schedule does, so that
// each choice sees the loop positions and extents the earlier ones produced.
#include "search/RandomAnnotation.h"

#include "schedule/State.h"

#include <algorithm>
#include <cassert>
#include <iterator>

namespace clustune::search {
namespace {

using schedule::Annotation;
using schedule::AnnotationStep;
using schedule::ComputeLocationKind;
using schedule::IteratorKind;
using schedule::Stage;
using schedule::State;
using schedule::Step;

class Annotator {
public:
  Annotator(const te::Workload& workload, const Sketch& sketch, const AnnotationOptions& options,
            Rng& rng)
      : workload_(workload), sketch_(sketch), options_(options), rng_(rng) {}

  std::vector<Step> run() {
    steps_ = fillSplitFactors();
    state_ = schedule::replay(workload_, steps_);
    const int stageCount = static_cast<int>(state_.stages().size());
    for (int stage = 0; stage < stageCount; ++stage)
      changeComputeLocation(stage);
    for (int stage = 0; stage < stageCount; ++stage) {
      if (this->stage(stage).isInlined())
        continue;
      vectorizeInnermost(stage);
      if (this->stage(stage).location.kind == ComputeLocationKind::Root)
        parallelizeOuter(stage);
      const int unroll = kAutoUnrollChoices[rng_.uniformInt(std::size(kAutoUnrollChoices))];
      if (unroll > 0)
        push(schedule::PragmaStep{.stage = stage, .iterator = 0, .autoUnrollMaxStep = unroll});
    }
    return steps_;
  }

private:
  std::vector<Step> fillSplitFactors() {
    std::vector<Step> steps = sketch_.steps;
    TileFactors factors;
    for (const TileSplit& tile : sketch_.tiles)
      factors.push_back(randomFactors(tile.extent, tile.parts, rng_));
    setTileFactors(sketch_, factors, steps);
    return steps;
  }

  // Ansor's random compute location: a non-output root stage with one consumer is either left
  // at root or computed at one of the consumer's outer spatial loops (never inside a reduce
  // loop, which would recompute it per reduction step, nor at the innermost loop, which is the
  // one to vectorize).
  void changeComputeLocation(int stageIndex) {
    const Stage& current = stage(stageIndex);
    if (current.isOutput() || current.location.kind != ComputeLocationKind::Root)
      return;
    const std::vector<int> consumers = schedule::effectiveConsumers(state_, stageIndex);
    if (consumers.size() != 1 || stage(consumers[0]).location.kind != ComputeLocationKind::Root)
      return;
    const Stage& consumer = stage(consumers[0]);
    std::vector<int> positions = {-1}; // -1: stay at root
    for (int position = 0; position + 1 < static_cast<int>(consumer.loops.size()); ++position) {
      if (consumer.loop(position).kind != IteratorKind::Spatial)
        break;
      positions.push_back(position);
    }
    const int position = rng_.pick(positions);
    if (position >= 0)
      push(schedule::ComputeAtStep{
          .stage = stageIndex, .targetStage = consumers[0], .targetIterator = position});
  }

  bool isAttachTarget(int stageIndex, int position) const {
    return schedule::isAttachTarget(state_, stageIndex, position);
  }

  // The innermost loop is vectorized when it is spatial and at most kMaxInnermostFactor long;
  // a longer one is split by a random divisor first (an exact split, so no guard in the vector).
  void vectorizeInnermost(int stageIndex) {
    if (options_.vectorLanes < 2 || stage(stageIndex).loops.empty())
      return;
    int innermost = static_cast<int>(stage(stageIndex).loops.size()) - 1;
    const schedule::Iterator& loop = stage(stageIndex).loop(innermost);
    if (loop.kind != IteratorKind::Spatial || loop.annotation != Annotation::None ||
        loop.extent < 2 || isAttachTarget(stageIndex, innermost))
      return;
    if (loop.extent > kMaxInnermostFactor) {
      std::vector<std::int64_t> lengths = divisorsUpTo(loop.extent, kMaxInnermostFactor);
      lengths.erase(lengths.begin()); // 1 is no vector
      if (lengths.empty())
        return; // a prime longer than the limit: no exact split
      push(schedule::SplitStep{
          .stage = stageIndex, .iterator = innermost, .factors = {rng_.pick(lengths)}});
      ++innermost;
    }
    push(AnnotationStep{
        .stage = stageIndex, .iterator = innermost, .annotation = Annotation::Vectorize});
  }

  // Ansor's parallel rule: fuse outer spatial loops until there are 16 iterations per core (or
  // no more outer spatial loops), stopping at a loop where another stage is computed so that
  // the attached stage still runs once per tile.
  void parallelizeOuter(int stageIndex) {
    const std::int64_t target = 16 * static_cast<std::int64_t>(std::max(options_.cores, 1));
    const int loopCount = static_cast<int>(stage(stageIndex).loops.size());
    std::int64_t product = 1;
    int fused = 0;
    while (fused < loopCount && product < target) {
      const schedule::Iterator& loop = stage(stageIndex).loop(fused);
      if (loop.kind != IteratorKind::Spatial || loop.annotation != Annotation::None)
        break;
      product *= loop.extent;
      if (isAttachTarget(stageIndex, fused++))
        break;
    }
    if (fused > 1) {
      std::vector<int> iterators;
      for (int position = 0; position < fused; ++position)
        iterators.push_back(position);
      push(schedule::FuseStep{.stage = stageIndex, .iterators = iterators});
    }
    if (fused > 0 && product > 1)
      push(AnnotationStep{.stage = stageIndex, .iterator = 0, .annotation = Annotation::Parallel});
  }

  void push(const Step& step) {
    state_ = schedule::applyStep(std::move(state_), step);
    steps_.push_back(step);
  }

  const Stage& stage(int index) const { return state_.stages()[index]; }

  const te::Workload& workload_;
  const Sketch& sketch_;
  AnnotationOptions options_;
  Rng& rng_;
  State state_;
  std::vector<Step> steps_;
};

} // namespace

std::vector<std::int64_t> divisorsUpTo(std::int64_t extent, std::int64_t limit) {
  // Pairs (d, extent / d) up to the square root: extents of flattened tensors reach millions.
  std::vector<std::int64_t> divisors;
  for (std::int64_t d = 1; d * d <= extent; ++d) {
    if (extent % d != 0)
      continue;
    if (d <= limit)
      divisors.push_back(d);
    if (extent / d != d && extent / d <= limit)
      divisors.push_back(extent / d);
  }
  std::sort(divisors.begin(), divisors.end());
  return divisors;
}

std::vector<std::int64_t> randomFactors(std::int64_t extent, int parts, Rng& rng) {
  assert(parts >= 1 && extent >= 0);
  std::vector<std::int64_t> factors(parts - 1, 1);
  std::int64_t remaining = std::max<std::int64_t>(extent, 1);
  for (int level = parts - 2; level >= 0; --level) {
    const std::int64_t limit = level == parts - 2 ? kMaxInnermostFactor : remaining;
    factors[level] = rng.pick(divisorsUpTo(remaining, limit));
    remaining /= factors[level];
  }
  return factors;
}

std::vector<schedule::Step> annotateSketch(const te::Workload& workload, const Sketch& sketch,
                                           const AnnotationOptions& options, Rng& rng) {
  return Annotator(workload, sketch, options, rng).run();
}

} // namespace clustune::search
