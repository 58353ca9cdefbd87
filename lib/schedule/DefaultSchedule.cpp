// See DefaultSchedule.h. The steps are applied to a State as they are chosen, so that later
// choices read the loop positions and extents the earlier steps produced, and every emitted
// schedule is known to replay.
#include "schedule/DefaultSchedule.h"

#include "schedule/State.h"

#include <algorithm>

namespace clustune::schedule {
namespace {

// The vector length for a loop of `extent`: the widest power of two from `maxLanes` down to 4
// that divides it, unless a wider divisor up to `maxLanes` exists (7, 14 and 28 are the widths
// of late CNN layers: a 7- or 14-lane vector, which LLVM pads to a register, still beats a
// scalar loop). A longer loop with no such divisor (a prime such as 149) gets full vectors
// with a guarded tail, which the code generator turns into masked accesses. 0 when the loop is
// shorter than a vector and nothing from 4 up divides it.
int vectorLength(std::int64_t extent, int maxLanes) {
  if (extent <= 0)
    return 0; // an empty tensor: nothing to vectorize
  const int widest = std::min(maxLanes, 16);
  int powerOfTwo = 0;
  for (int lanes = widest; lanes >= 4 && !powerOfTwo; lanes /= 2)
    if (extent % lanes == 0)
      powerOfTwo = lanes;
  int divisor = 0;
  for (int lanes = widest; lanes >= 4 && !divisor; --lanes)
    if (extent % lanes == 0)
      divisor = lanes;
  if (powerOfTwo == 0 && divisor == 0 && widest >= 4 && extent > widest)
    return widest; // e.g. 149 or 73 (Inception): full vectors and a guarded, masked tail
  return powerOfTwo * 2 > divisor ? powerOfTwo : divisor;
}

// Vectors of the innermost spatial loop that a reduction accumulates at once (4 or 2 when they
// divide it): independent accumulators that stay in registers across the reduce loops and
// reuse each loaded operand of the other input.
int registerTile(std::int64_t vectors) {
  for (int tile : {4, 2})
    if (vectors % tile == 0)
      return tile;
  return 1;
}

class DefaultScheduler {
public:
  DefaultScheduler(const te::Workload& workload, const CpuScheduleOptions& options)
      : options_(options), state_(initialState(workload)) {}

  std::vector<Step> run() {
    const int stageCount = static_cast<int>(state_.stages().size());
    for (int stage = 0; stage < stageCount; ++stage) {
      const Stage& current = state_.stages()[stage];
      if (!current.isOutput() && !current.tensor->isReduction())
        push(ComputeInlineStep{.stage = stage});
    }
    for (int stage = 0; stage < stageCount; ++stage)
      if (state_.stages()[stage].location.kind == ComputeLocationKind::Root)
        scheduleLoops(stage);
    return steps_;
  }

private:
  void push(const Step& step) {
    state_ = applyStep(std::move(state_), step);
    steps_.push_back(step);
  }

  const Stage& stage(int index) const { return state_.stages()[index]; }

  void scheduleLoops(int index) {
    // Initially the spatial loops come first, then the reduce loops.
    int spatialLoops = stage(index).spatialAxisCount();
    const int reduceLoops = static_cast<int>(stage(index).loops.size()) - spatialLoops;
    if (spatialLoops == 0)
      return;

    // The innermost spatial loop becomes [outer part, register tile, vector] as far as its
    // extent allows; the tile and the vector run below the reduce loops.
    int innerLoops = 0;
    const std::int64_t innermost = stage(index).loop(spatialLoops - 1).extent;
    if (const int lanes = vectorLength(innermost, options_.vectorLanes)) {
      const int tile = reduceLoops > 0 ? registerTile(innermost / lanes) : 1;
      std::vector<std::int64_t> factors;
      if (tile > 1)
        factors = {tile, lanes};
      else if (innermost != lanes)
        factors = {lanes};
      if (!factors.empty())
        push(SplitStep{.stage = index, .iterator = spatialLoops - 1, .factors = factors});
      spatialLoops += static_cast<int>(factors.size());
      innerLoops = tile > 1 ? 2 : 1;
      if (reduceLoops > 0) {
        // [outer spatial..., reduce..., tile, vector]
        std::vector<int> order;
        for (int position = 0; position < spatialLoops - innerLoops; ++position)
          order.push_back(position);
        for (int position = 0; position < reduceLoops; ++position)
          order.push_back(spatialLoops + position);
        for (int position = spatialLoops - innerLoops; position < spatialLoops; ++position)
          order.push_back(position);
        push(ReorderStep{.stage = index, .order = order});
      }
      const int vectorLoop = static_cast<int>(stage(index).loops.size()) - 1;
      push(AnnotationStep{
          .stage = index, .iterator = vectorLoop, .annotation = Annotation::Vectorize});
      if (tile > 1)
        push(AnnotationStep{
            .stage = index, .iterator = vectorLoop - 1, .annotation = Annotation::Unroll});
    }

    // The outer spatial loops, which precede any reduce loop, the tile and the vector loop.
    const int outerLoops = spatialLoops - innerLoops;
    const std::int64_t target = 4 * static_cast<std::int64_t>(std::max(options_.cores, 1));
    std::int64_t product = 1;
    int fused = 0;
    while (fused < outerLoops && product < target)
      product *= stage(index).loop(fused++).extent;
    if (fused > 1) {
      std::vector<int> iterators;
      for (int position = 0; position < fused; ++position)
        iterators.push_back(position);
      push(FuseStep{.stage = index, .iterators = iterators});
    }
    if (fused > 0 && product > 1)
      push(AnnotationStep{.stage = index, .iterator = 0, .annotation = Annotation::Parallel});
  }

  CpuScheduleOptions options_;
  State state_;
  std::vector<Step> steps_;
};

} // namespace

std::vector<Step> defaultSchedule(const te::Workload& workload, const CpuScheduleOptions& options) {
  return DefaultScheduler(workload, options).run();
}

} // namespace clustune::schedule
