// See GpuModelExecutor.h.
#include "executor/GpuModelExecutor.h"

#include "codegen/cuda/Ptxas.h"
#include "executor/ModelPlan.h"
#include "support/Error.h"
#include "support/Stopwatch.h"

#include <cstring>
#include <spdlog/spdlog.h>

namespace clustune::executor {
namespace {

// Device buffers start at multiples of this (cuMemAlloc's own alignment), so that vector loads
// stay aligned inside the shared workspace.
constexpr std::int64_t kDeviceAlignment = 256;

std::int64_t alignUp(std::int64_t bytes) {
  return (bytes + kDeviceAlignment - 1) / kDeviceAlignment * kDeviceAlignment;
}

} // namespace

GpuModelExecutor::GpuModelExecutor(graph::Graph model, const codegen::CudaTarget& target,
                                   runtime::cuda::CudaDriver::Session& session,
                                   const ScheduleLookup& tuned)
    : model_(std::move(model)), session_(session) {
  tasks_ = graph::partition(model_, &occurrences_);
  // Kernels run one after another on one stream, so every task's workspace can share one buffer.
  std::int64_t workspaceBytes = 0;
  for (const graph::Task& task : tasks_) {
    if (modules_.count(task.key))
      continue;
    const auto start = SteadyClock::now();
    GpuTaskKernels compiled = compileTaskForGpu(task, target, tuned);
    LoadedTask loaded{.code = std::move(compiled.module)};
    std::int64_t offset = 0;
    for (const codegen::CudaWorkspace& buffer : loaded.code.workspace) {
      loaded.workspaceOffsets.push_back(offset);
      offset += alignUp(buffer.bytes);
    }
    workspaceBytes = std::max(workspaceBytes, offset);
    try {
      // The machine code tuning measured, where ptxas is there (Ptxas.h).
      codegen::attachCubin(loaded.code, target);
      loaded.module = session_.loadModule(loaded.code.image());
      loaded.kernels = session_.resolve(loaded.module, loaded.code.launches);
    } catch (const Error& error) {
      if (loaded.module)
        session_.unloadModule(loaded.module);
      throw error.withContext({.task = task.key});
    }
    tuned_ += compiled.tuned ? 1 : 0;
    modules_.emplace(task.key, std::move(loaded));
    compileSeconds_.push_back(secondsSince(start));
  }

  const auto allocate = [&](std::int64_t bytes) {
    const std::uint64_t address =
        session_.allocate(static_cast<std::size_t>(std::max<std::int64_t>(bytes, 1)));
    allocations_.push_back(address);
    deviceBytes_ += bytes;
    return address;
  };
  const ArenaPlacement placement = placeProducedValues(model_, occurrences_);
  arenaOffset_ = placement.offsets;
  arena_ = allocate(placement.arenaBytes);
  workspace_ = allocate(workspaceBytes);
  for (const auto& [id, data] : constantData(model_)) {
    const std::uint64_t address = allocate(static_cast<std::int64_t>(data.byteSize()));
    session_.copyToDevice(address, data.data(), data.byteSize());
    resident_[id] = address;
  }
  for (graph::ValueId id : model_.inputs)
    resident_[id] = allocate(model_.values[id].bytes());
  for (const graph::TaskOccurrence& occurrence : occurrences_)
    for (graph::ValueId id : occurrence.inputs)
      if (!arenaOffset_.count(id) && !resident_.count(id))
        throw Error("constant '" + model_.values[id].name +
                    "' has no data: provide it or generate weights");
  spdlog::debug("{}: {} task occurrences, {} kernel modules, {:.1f} MiB on the GPU", model_.name,
                occurrences_.size(), modules_.size(),
                static_cast<double>(deviceBytes_) / (1 << 20));
}

GpuModelExecutor::~GpuModelExecutor() {
  // After a fault the context is gone and these fail; the process's exit frees everything.
  for (auto& [key, loaded] : modules_)
    try {
      session_.unloadModule(loaded.module);
    } catch (const Error&) {
    }
  for (std::uint64_t address : allocations_)
    try {
      session_.free(address);
    } catch (const Error&) {
    }
}

std::uint64_t GpuModelExecutor::addressOf(graph::ValueId id) const {
  if (auto offset = arenaOffset_.find(id); offset != arenaOffset_.end())
    return arena_ + static_cast<std::uint64_t>(offset->second);
  return resident_.at(id);
}

void GpuModelExecutor::enqueueOccurrence(std::size_t step) {
  const graph::TaskOccurrence& occurrence = occurrences_[step];
  const LoadedTask& loaded = modules_.at(occurrence.key);
  // The kernels take the task's inputs, its outputs, then its workspace buffers.
  std::vector<std::uint64_t> pointers;
  for (graph::ValueId id : occurrence.inputs)
    pointers.push_back(addressOf(id));
  for (graph::ValueId id : occurrence.outputs)
    pointers.push_back(addressOf(id));
  for (std::int64_t offset : loaded.workspaceOffsets)
    pointers.push_back(workspace_ + static_cast<std::uint64_t>(offset));
  try {
    session_.enqueue(loaded.kernels, loaded.code.launches, pointers);
  } catch (const Error& error) {
    throw error.withContext({.task = occurrence.key});
  }
}

std::vector<te::TensorData> GpuModelExecutor::run(const std::vector<te::TensorData>& inputs) {
  checkModelInputs(model_, inputs);
  for (std::size_t i = 0; i < inputs.size(); ++i)
    session_.copyToDevice(resident_.at(model_.inputs[i]), inputs[i].data(), inputs[i].byteSize());
  timeForward();
  std::vector<te::TensorData> outputs;
  for (graph::ValueId id : model_.outputs) {
    const graph::Value& value = model_.values[id];
    te::TensorData output(value.dtype, value.shape);
    if (output.byteSize() > 0)
      session_.copyToHost(output.data(), addressOf(id), output.byteSize());
    outputs.push_back(std::move(output));
  }
  return outputs;
}

double GpuModelExecutor::timeForward() {
  return session_.timed([&] {
    for (std::size_t step = 0; step < occurrences_.size(); ++step)
      enqueueOccurrence(step);
  });
}

std::vector<double> GpuModelExecutor::timeOccurrences() {
  std::vector<double> seconds;
  for (std::size_t step = 0; step < occurrences_.size(); ++step)
    seconds.push_back(session_.timed([&] { enqueueOccurrence(step); }));
  return seconds;
}

} // namespace clustune::executor
