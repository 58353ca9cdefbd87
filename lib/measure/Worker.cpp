// See Worker.h.
#include "measure/Worker.h"

#include "codegen/cpu/JitLoader.h"
#include "measure/MeasureInput.h"
#include "runtime/AlignedBuffer.h"
#include "runtime/ThreadPool.h"
#include "support/Error.h"

#include <cstdio>
#include <cstring>
#include <unistd.h>

namespace clustune::measure {
namespace {

// The inputs of the last task run here: the candidates of a task come one after another, and
// drawing a large task's inputs took a tenth of the worker's time. Kernels receive copies.
const std::vector<te::TensorData>& inputsFor(const RunRequest& request) {
  static std::vector<ArgumentSpec> arguments;
  static std::uint64_t seed = 0;
  static std::vector<te::TensorData> inputs;
  if (inputs.empty() || seed != request.seed || arguments != request.arguments) {
    inputs = generateInputs(request.arguments, request.seed);
    arguments = request.arguments;
    seed = request.seed;
  }
  return inputs;
}

} // namespace

RunResponse executeRunRequest(const RunRequest& request) {
  RunResponse response;
  try {
    if (request.threads > 0 && runtime::ThreadPool::global().threadCount() != request.threads)
      runtime::ThreadPool::global().setThreadCount(request.threads);
    const codegen::LoadedKernel kernel(request.objectBytes, request.functionName);
    // Inputs are generated, then copied into aligned buffers like those the executor runs on.
    const std::vector<te::TensorData>& inputs = inputsFor(request);
    std::vector<runtime::AlignedBuffer> buffers;
    for (const te::TensorData& input : inputs) {
      buffers.emplace_back(input.byteSize());
      std::memcpy(buffers.back().data(), input.data(), input.byteSize());
    }
    for (const ArgumentSpec& spec : request.arguments)
      if (spec.isOutput)
        buffers.emplace_back(te::TensorData(spec.dtype, spec.shape).byteSize());
    std::vector<void*> pointers;
    for (runtime::AlignedBuffer& buffer : buffers)
      pointers.push_back(buffer.data());
    response.costs = timeRuns([&] { kernel.run(pointers.data()); }, request.timing);
    if (request.returnOutputs)
      for (std::size_t i = 0; i < request.arguments.size(); ++i)
        if (request.arguments[i].isOutput)
          response.outputBytes.emplace_back(reinterpret_cast<const char*>(buffers[i].data()),
                                            buffers[i].size());
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
    if (!writeFrame(fd, encode(executeRunRequest(request))))
      return 0;
  }
  return 0;
}

} // namespace clustune::measure
