// The default GPU schedule of a workload, as TVM's CUDA fallback schedules: what clustune
// compiles for a GPU target before (or without) tuning.
//   - every stage that is neither an output nor a reduction is inlined into its consumers, as
//     on the CPU;
//   - each stage left at root fuses its spatial loops into one, splits it into blocks of
//     `threadsPerBlock` threads (fewer when the loop is shorter) and binds the two parts to
//     blockIdx.x and threadIdx.x; a reduction's reduce loops run inside each thread;
//   - a stage without spatial loops (a full reduction) stays one serial thread.
// Each root stage becomes one kernel (codegen/cuda/CudaCodegen.h).
#pragma once

#include "schedule/Step.h"
#include "te/Tensor.h"

#include <vector>

namespace clustune::schedule {

struct GpuScheduleOptions {
  int threadsPerBlock = 256;
};

std::vector<Step> defaultGpuSchedule(const te::Workload& workload,
                                     const GpuScheduleOptions& options);

} // namespace clustune::schedule
