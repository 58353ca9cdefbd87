// See GpuKernels.h.
#include "executor/GpuKernels.h"

#include "schedule/DefaultGpuSchedule.h"
#include "schedule/Lower.h"
#include "schedule/State.h"
#include "support/Error.h"
#include "te/LowerTask.h"

#include <algorithm>

namespace clustune::executor {

GpuTaskKernels compileTaskForGpu(const graph::Task& task, const codegen::CudaTarget& target,
                                 const ScheduleLookup& tuned) {
  try {
    const te::Workload workload = te::lowerTask(task);
    std::optional<std::vector<schedule::Step>> steps = tuned ? tuned(task.key) : std::nullopt;
    const bool wasTuned = steps.has_value();
    if (!steps)
      steps = schedule::defaultGpuSchedule(
          workload, {.threadsPerBlock = std::min(256, target.maxThreadsPerBlock)});
    const schedule::State state = schedule::replay(workload, *steps);
    return {.module =
                codegen::compileToPtx(schedule::lower(workload, state, "task_" + task.key), target),
            .tuned = wasTuned};
  } catch (const Error& error) {
    throw error.withContext({.task = task.key});
  }
}

} // namespace clustune::executor
