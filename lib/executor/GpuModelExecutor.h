// Runs a whole model on an NVIDIA GPU (DESIGN §4.5): the model's task occurrences in order,
// each one's kernels launched on one CUDA stream, with every value in GPU memory. Values that
// tasks produce share one device arena, placed as the host executor places them (ModelPlan.h);
// weights are copied to the device once; the graph's inputs are copied in and its outputs out
// around each run. Kernels are compiled once per distinct task (GpuKernels.h) and loaded into
// the session's context.
//
// A kernel that faults on the GPU loses the context: run() then throws clustune::Error naming
// the task that was running, and the process cannot use the GPU again (CudaDriver.h).
#pragma once

#include "codegen/cuda/CudaTarget.h"
#include "executor/GpuKernels.h"
#include "graph/Graph.h"
#include "graph/Partition.h"
#include "runtime/cuda/CudaDriver.h"
#include "te/TensorData.h"

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

namespace clustune::executor {

class GpuModelExecutor {
public:
  // Partitions `model` (already simplified, its weights present), compiles and loads every
  // kernel, allocates the device memory and copies the weights. Throws clustune::Error naming
  // the task that does not compile, or the CUDA call that failed.
  GpuModelExecutor(graph::Graph model, const codegen::CudaTarget& target,
                   runtime::cuda::CudaDriver::Session& session, const ScheduleLookup& tuned = {});
  ~GpuModelExecutor();
  GpuModelExecutor(const GpuModelExecutor&) = delete;
  GpuModelExecutor& operator=(const GpuModelExecutor&) = delete;

  const graph::Graph& model() const { return model_; }
  const std::vector<graph::Task>& tasks() const { return tasks_; } // one per occurrence
  const std::vector<graph::TaskOccurrence>& occurrences() const { return occurrences_; }
  std::size_t kernelModules() const { return modules_.size(); } // distinct tasks
  std::size_t tunedModules() const { return tuned_; }
  const std::vector<double>& compileSeconds() const { return compileSeconds_; }
  std::int64_t deviceBytes() const { return deviceBytes_; }

  // Copies `inputs` (in the graph's input order) to the device, runs every kernel and returns
  // the graph outputs. Throws clustune::Error for an input of the wrong shape or dtype.
  std::vector<te::TensorData> run(const std::vector<te::TensorData>& inputs);
  // GPU seconds of one pass over every kernel, on the inputs of the last run(): the model's
  // latency with its data on the device, as PyTorch's CUDA timings measure it.
  double timeForward();
  // GPU seconds of each task occurrence in one pass, in occurrences() order.
  std::vector<double> timeOccurrences();

private:
  struct LoadedTask {
    void* module = nullptr;
    std::vector<void*> kernels = {};
    codegen::CudaModule code = {};
    std::vector<std::int64_t> workspaceOffsets = {}; // into the shared workspace buffer
  };
  std::uint64_t addressOf(graph::ValueId id) const;
  void enqueueOccurrence(std::size_t step);

  graph::Graph model_;
  runtime::cuda::CudaDriver::Session& session_;
  std::vector<graph::Task> tasks_;
  std::vector<graph::TaskOccurrence> occurrences_;
  std::map<std::string, LoadedTask> modules_; // by workload key
  std::size_t tuned_ = 0;
  std::vector<double> compileSeconds_;
  std::vector<std::uint64_t> allocations_; // freed in the destructor
  std::uint64_t arena_ = 0, workspace_ = 0;
  std::map<graph::ValueId, std::int64_t> arenaOffset_;
  std::map<graph::ValueId, std::uint64_t> resident_; // constants and graph inputs
  std::int64_t deviceBytes_ = 0;
};

} // namespace clustune::executor
