// `clustune-run --target <gpu>.json --emit-ptx DIR`: the PTX of every task of a model for a
// CUDA target, written without a GPU (docs/cuda.md). Each task gets its tuned schedule where a
// tuning log has one, the default GPU schedule otherwise, and becomes DIR/<task key>.ptx.
#pragma once

#include "codegen/cuda/CudaTarget.h"
#include "executor/GpuKernels.h"
#include "graph/Task.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace clustune::executor {

// Compiles every task first and writes only when all compiled, so a task that fails leaves
// DIR as it was (clustune::Error naming the task). Returns one JSON object per task: key,
// anchor, whether it was tuned, its kernels with their grid and block, the workspace bytes and
// the PTX file.
nlohmann::ordered_json exportPtx(const std::vector<graph::Task>& tasks,
                                 const codegen::CudaTarget& target, const ScheduleLookup& tuned,
                                 const std::string& directory);

} // namespace clustune::executor
