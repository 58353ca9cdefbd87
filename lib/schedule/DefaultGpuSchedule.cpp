// See DefaultGpuSchedule.h. Steps are applied as they are chosen, so that every emitted
// schedule is known to replay.
#include "schedule/DefaultGpuSchedule.h"

#include "schedule/State.h"

#include <algorithm>
#include <cassert>

namespace clustune::schedule {

std::vector<Step> defaultGpuSchedule(const te::Workload& workload,
                                     const GpuScheduleOptions& options) {
  assert(options.threadsPerBlock >= 1);
  State state = initialState(workload);
  std::vector<Step> steps;
  const auto push = [&](const Step& step) {
    state = applyStep(std::move(state), step);
    steps.push_back(step);
  };
  const int stageCount = static_cast<int>(state.stages().size());
  for (int stage = 0; stage < stageCount; ++stage) {
    const Stage& current = state.stages()[stage];
    if (!current.isOutput() && !current.tensor->isReduction())
      push(ComputeInlineStep{.stage = stage});
  }
  for (int stage = 0; stage < stageCount; ++stage) {
    if (state.stages()[stage].location.kind != ComputeLocationKind::Root)
      continue;
    // Initially the spatial loops come first, then the reduce loops.
    const int spatialLoops = state.stages()[stage].spatialAxisCount();
    if (spatialLoops == 0)
      continue;
    if (spatialLoops > 1) {
      std::vector<int> iterators(static_cast<std::size_t>(spatialLoops));
      for (int position = 0; position < spatialLoops; ++position)
        iterators[static_cast<std::size_t>(position)] = position;
      push(FuseStep{.stage = stage, .iterators = iterators});
    }
    const std::int64_t extent = state.stages()[stage].loop(0).extent;
    if (extent <= 0)
      continue; // an empty tensor: nothing to launch
    const std::int64_t threads = std::min<std::int64_t>(extent, options.threadsPerBlock);
    push(SplitStep{.stage = stage, .iterator = 0, .factors = {threads}});
    push(AnnotationStep{.stage = stage, .iterator = 0, .annotation = Annotation::BlockIdxX});
    push(AnnotationStep{.stage = stage, .iterator = 1, .annotation = Annotation::ThreadIdxX});
  }
  return steps;
}

} // namespace clustune::schedule
