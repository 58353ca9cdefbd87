// The worker's GPU side (Worker.h): runs a candidate's PTX on device 0 through the CUDA driver
// and times it with CUDA events, under the same protocol as CPU candidates (Timing.h). The
// driver is opened on the first GPU request and kept, with the task's device buffers, for the
// candidates that follow. A fault inside a kernel loses the CUDA context for good: the response
// says so (workerSpent), and the Runner starts a fresh worker for the next candidate.
#include "measure/MeasureInput.h"
#include "measure/Worker.h"
#include "runtime/cuda/CudaDriver.h"

#include <algorithm>
#include <memory>
#include <utility>

namespace clustune::measure {
namespace {

using runtime::cuda::CudaDriver;

// Bytes written over before each run when the caches are flushed: more than twice the largest
// L2 of the targets (the H200's 60 MB), so that no kernel data survives in it.
constexpr std::size_t kL2FlushBytes = std::size_t{256} << 20;

// Device memory freed with the scope.
class DeviceBuffer {
public:
  DeviceBuffer(CudaDriver::Session& session, std::size_t bytes)
      : session_(&session), address_(session.allocate(std::max<std::size_t>(bytes, 1))),
        bytes_(bytes) {}
  ~DeviceBuffer() {
    if (address_)
      try {
        session_->free(address_);
      } catch (const Error&) {
        // A lost context frees everything with the process.
      }
  }
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : session_(other.session_), address_(std::exchange(other.address_, 0)), bytes_(other.bytes_) {
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(DeviceBuffer&&) = delete;
  std::uint64_t address() const { return address_; }
  std::size_t bytes() const { return bytes_; }

private:
  CudaDriver::Session* session_;
  std::uint64_t address_;
  std::size_t bytes_;
};

// The driver, the context and the last task's arguments on the device. Each candidate gets its
// inputs copied afresh and zeroed outputs, as the CPU side does.
class GpuState {
public:
  CudaDriver::Session& session() {
    if (!session_) {
      driver_ = CudaDriver::open();
      session_ = driver_->session(0);
    }
    return *session_;
  }

  std::vector<std::uint64_t> prepare(const RunRequest& request) {
    CudaDriver::Session& device = session();
    if (buffers_.empty() || seed_ != request.seed || specs_ != request.arguments) {
      buffers_.clear();
      inputs_ = generateInputs(request.arguments, request.seed);
      for (const ArgumentSpec& spec : request.arguments)
        buffers_.emplace_back(device, te::TensorData(spec.dtype, spec.shape).byteSize());
      specs_ = request.arguments;
      seed_ = request.seed;
    }
    std::vector<std::uint64_t> pointers;
    std::size_t input = 0;
    for (std::size_t i = 0; i < specs_.size(); ++i) {
      const DeviceBuffer& buffer = buffers_[i];
      if (specs_[i].isOutput)
        device.zero(buffer.address(), buffer.bytes());
      else
        device.copyToDevice(buffer.address(), inputs_[input++].data(), buffer.bytes());
      pointers.push_back(buffer.address());
    }
    return pointers;
  }

  const DeviceBuffer& buffer(std::size_t argument) const { return buffers_[argument]; }

  std::uint64_t flushBuffer() {
    if (!flush_)
      flush_ = std::make_unique<DeviceBuffer>(session(), kL2FlushBytes);
    return flush_->address();
  }

private:
  std::unique_ptr<CudaDriver> driver_;
  std::unique_ptr<CudaDriver::Session> session_;
  std::vector<ArgumentSpec> specs_;
  std::uint64_t seed_ = 0;
  std::vector<te::TensorData> inputs_;
  std::vector<DeviceBuffer> buffers_; // one per argument, in order
  std::unique_ptr<DeviceBuffer> flush_;
};

// A loaded module, unloaded with the scope.
class LoadedModule {
public:
  LoadedModule(CudaDriver::Session& session, const codegen::CudaModule& code)
      : session_(session), module_(session.loadModule(code.image())) {}
  ~LoadedModule() {
    try {
      session_.unloadModule(module_);
    } catch (const Error&) {
    }
  }
  LoadedModule(const LoadedModule&) = delete;
  LoadedModule& operator=(const LoadedModule&) = delete;
  void* handle() const { return module_; }

private:
  CudaDriver::Session& session_;
  void* module_;
};

RunResponse runOnGpu(GpuState& state, const RunRequest& request) {
  RunResponse response;
  CudaDriver::Session& device = state.session();
  std::vector<std::uint64_t> pointers = state.prepare(request);
  std::vector<DeviceBuffer> workspace;
  for (const codegen::CudaWorkspace& buffer : request.gpu.workspace) {
    workspace.emplace_back(device, static_cast<std::size_t>(buffer.bytes));
    pointers.push_back(workspace.back().address());
  }
  const LoadedModule module(device, request.gpu);
  const std::vector<codegen::CudaLaunch>& launches = request.gpu.launches;
  response.costs = timeBatches(
      [&](std::int64_t runs) {
        if (!request.timing.cacheFlush)
          return device.runLaunches(module.handle(), launches, pointers, runs);
        const std::uint64_t flush = state.flushBuffer();
        double seconds = 0;
        for (std::int64_t run = 0; run < runs; ++run) {
          device.zero(flush, kL2FlushBytes);
          seconds += device.runLaunches(module.handle(), launches, pointers, 1);
        }
        return seconds;
      },
      request.timing);
  if (request.returnOutputs)
    for (std::size_t i = 0; i < request.arguments.size(); ++i)
      if (request.arguments[i].isOutput) {
        const DeviceBuffer& output = state.buffer(i);
        std::string bytes(output.bytes(), '\0');
        device.copyToHost(bytes.data(), output.address(), output.bytes());
        response.outputBytes.push_back(std::move(bytes));
      }
  return response;
}

} // namespace

RunResponse executeGpuRunRequest(const RunRequest& request) {
  static GpuState state;
  try {
    return runOnGpu(state, request);
  } catch (const runtime::cuda::CudaError& error) {
    return RunResponse{.error = errors::kRuntime,
                       .errorDetail =
                           error.contextLost()
                               ? std::string("the kernel faulted on the GPU: ") + error.what()
                               : error.what(),
                       .workerSpent = error.contextLost()};
  } catch (const std::exception& error) {
    return RunResponse{.error = errors::kRuntime, .errorDetail = error.what()};
  }
}

} // namespace clustune::measure
