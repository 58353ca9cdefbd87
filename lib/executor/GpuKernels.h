// A task's kernels for an NVIDIA GPU, as clustune-run builds them: the tuned schedule where a
// tuning log has one, the default GPU schedule otherwise (schedule/DefaultGpuSchedule.h),
// lowered and compiled to PTX (codegen/cuda/CudaCodegen.h). Shared by --emit-ptx
// (PtxExport.h) and whole-model runs on the GPU (GpuModelExecutor.h).
#pragma once

#include "codegen/cuda/CudaCodegen.h"
#include "graph/Task.h"
#include "schedule/Step.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace clustune::executor {

// A tuned schedule for a workload key, or nullopt.
using ScheduleLookup =
    std::function<std::optional<std::vector<schedule::Step>>(const std::string&)>;

struct GpuTaskKernels {
  codegen::CudaModule module;
  bool tuned = false;
};

// Throws clustune::Error (with the task's key as context) when the task does not lower, its
// schedule does not replay, or the kernels exceed the target's limits.
GpuTaskKernels compileTaskForGpu(const graph::Task& task, const codegen::CudaTarget& target,
                                 const ScheduleLookup& tuned);

} // namespace clustune::executor
