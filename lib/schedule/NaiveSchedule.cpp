// See NaiveSchedule.h.
#include "schedule/NaiveSchedule.h"

#include "schedule/State.h"

namespace clustune::schedule {

std::vector<Step> naiveSchedule(const te::Workload& workload) {
  const State initial = replay(workload, {});
  std::vector<Step> steps;
  for (std::size_t stage = 0; stage < initial.stages().size(); ++stage) {
    const Stage& loops = initial.stages()[stage];
    for (std::size_t position = 0; position < loops.loops.size(); ++position) {
      const Iterator& loop = loops.loop(position);
      if (loop.kind != IteratorKind::Spatial)
        break;
      if (loop.extent > 1) {
        const Step parallel = AnnotationStep{.stage = static_cast<int>(stage),
                                             .iterator = static_cast<int>(position),
                                             .annotation = Annotation::Parallel};
        steps.push_back(parallel);
        break;
      }
    }
  }
  return steps;
}

} // namespace clustune::schedule
