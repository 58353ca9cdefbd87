// See Worker.h.
#include "measure/Worker.h"

#include "codegen/cpu/JitLoader.h"
#include "measure/MeasureInput.h"
#include "runtime/AlignedBuffer.h"
#include "runtime/ThreadPool.h"
#include "support/Error.h"

#include <cstdio>
#include <cstring>
#include <functional>
#include <unistd.h>

namespace clustune::measure {
namespace {

// The arguments of the last task run here: its candidates come one after another. Drawing a
// large task's inputs took a tenth of the worker's time, and fresh buffers made every
// candidate's warm-up run fault in their pages. Each candidate gets the inputs copied afresh
// and zeroed outputs, as new buffers would be.
class TaskArguments {
public:
  std::vector<void*> prepare(const RunRequest& request) {
    if (buffers_.empty() || seed_ != request.seed || specs_ != request.arguments) {
      inputs_ = generateInputs(request.arguments, request.seed);
      buffers_.clear();
      for (const ArgumentSpec& spec : request.arguments)
        buffers_.emplace_back(te::TensorData(spec.dtype, spec.shape).byteSize());
      specs_ = request.arguments;
      seed_ = request.seed;
    }
    std::size_t input = 0;
    std::vector<void*> pointers;
    for (std::size_t i = 0; i < specs_.size(); ++i) {
      runtime::AlignedBuffer& buffer = buffers_[i];
      if (specs_[i].isOutput)
        std::memset(buffer.data(), 0, buffer.size());
      else
        std::memcpy(buffer.data(), inputs_[input++].data(), buffer.size());
      pointers.push_back(buffer.data());
    }
    return pointers;
  }
  const runtime::AlignedBuffer& buffer(std::size_t argument) const { return buffers_[argument]; }

private:
  std::vector<ArgumentSpec> specs_;
  std::uint64_t seed_ = 0;
  std::vector<te::TensorData> inputs_;
  std::vector<runtime::AlignedBuffer> buffers_; // one per argument, in order
};

} // namespace

RunResponse executeRunRequest(const RunRequest& request) {
  if (!request.gpu.ptx.empty())
    return executeGpuRunRequest(request);
  RunResponse response;
  try {
    if (request.threads > 0 && runtime::ThreadPool::global().threadCount() != request.threads)
      runtime::ThreadPool::global().setThreadCount(request.threads);
    const codegen::LoadedKernel kernel(request.objectBytes, request.functionName);
    static TaskArguments arguments;
    std::vector<void*> pointers = arguments.prepare(request);
    // A task without weights is timed as a warm one: runs timed one by one would add the
    // clock's cost to each run of a microsecond kernel.
    std::vector<std::size_t> weights;
    for (std::size_t i = 0; i < request.arguments.size(); ++i)
      if (request.arguments[i].isWeight)
        weights.push_back(i);
    std::function<void()> evictWeights;
    if (!weights.empty())
      evictWeights = [&] {
        for (std::size_t i : weights)
          evictFromCaches(pointers[i], arguments.buffer(i).size());
      };
    response.costs = timeRuns([&] { kernel.run(pointers.data()); }, request.timing, evictWeights);
    if (request.returnOutputs)
      for (std::size_t i = 0; i < request.arguments.size(); ++i)
        if (request.arguments[i].isOutput) {
          const runtime::AlignedBuffer& output = arguments.buffer(i);
          response.outputBytes.emplace_back(reinterpret_cast<const char*>(output.data()),
                                            output.size());
        }
  } catch (const std::exception& error) {
    response = RunResponse{.error = errors::kRuntime, .errorDetail = error.what()};
  }
  return response;
}

int serveRequests(int fd) {
  if (!writeFrame(fd, encode(WorkerHello{.pid = static_cast<std::int64_t>(::getpid())})))
    return 0;
  std::string payload;
  while (readFrame(fd, payload) == FrameStatus::Ok) {
    RunRequest request;
    try {
      request = decodeRunRequest(payload);
    } catch (const Error& error) {
      std::fprintf(stderr, "clustune-worker: %s\n", error.what());
      return 1;
    }
    const RunResponse response = executeRunRequest(request);
    if (!writeFrame(fd, encode(response)) || response.workerSpent)
      return 0;
  }
  return 0;
}

} // namespace clustune::measure
