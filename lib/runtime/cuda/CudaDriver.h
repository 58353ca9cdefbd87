// The CUDA driver API, loaded at run time with dlopen("libcuda.so.1") (DESIGN §4.5): nothing
// links against the driver, so every tool runs on a machine without a GPU and says clearly,
// in one clustune::Error, that CUDA is unavailable there. Only the calls that loading,
// launching and timing kernels need are bound; the driver's types stay in CudaDriver.cpp.
//
// Not yet run on a GPU: the sessions so far had none (docs/cuda.md). On a machine without a
// driver, and against CUDA's stub library, the loading and its errors are tested.
#pragma once

#include "runtime/cuda/KernelLaunch.h"
#include "support/Error.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace clustune::runtime::cuda {

struct CudaDevice {
  int ordinal = 0;
  std::string name;
  int computeCapabilityMajor = 0, computeCapabilityMinor = 0;
  int smCount = 0;
  int maxThreadsPerBlock = 0;
  int maxSharedMemoryPerBlock = 0;
};

// A failed driver call, with its CUresult. After some failures (an illegal address, a launch
// failure, a misaligned access, an illegal instruction) the context is unusable for good, and
// only a new process can use the GPU again: contextLost() says so.
class CudaError : public Error {
public:
  CudaError(const std::string& message, int code) : Error(message), code_(code) {}
  int code() const { return code_; }
  bool contextLost() const;

private:
  int code_;
};

class CudaDriver {
public:
  // Loads the driver (`library`, or libcuda.so.1 from the loader's search path) and
  // initialises it. Throws clustune::Error saying why CUDA is unavailable: no driver library,
  // a library without the driver API, CUDA's stub library (which the toolkit ships for
  // linking, not for running), or cuInit's own error (no device, a driver too old).
  static std::unique_ptr<CudaDriver> open(const std::string& library = "libcuda.so.1");
  ~CudaDriver();
  CudaDriver(const CudaDriver&) = delete;
  CudaDriver& operator=(const CudaDriver&) = delete;

  int driverVersion() const; // e.g. 13000 for CUDA 13.0
  std::vector<CudaDevice> devices() const;

  // A context on `device` (its primary context), current on the calling thread until the
  // session ends. Launches, copies and timing go through it.
  class Session;
  std::unique_ptr<Session> session(int device);

  struct Functions; // the driver's entry points, in CudaDriver.cpp

private:
  CudaDriver(void* handle, std::unique_ptr<Functions> functions);
  void* handle_;
  std::unique_ptr<Functions> functions_;
};

class CudaDriver::Session {
public:
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Device memory; 0 is never a valid allocation.
  std::uint64_t allocate(std::size_t bytes);
  void free(std::uint64_t address);
  void copyToDevice(std::uint64_t destination, const void* source, std::size_t bytes);
  void copyToHost(void* destination, std::uint64_t source, std::size_t bytes);
  void zero(std::uint64_t address, std::size_t bytes);

  // Loads a module image, PTX text (which the driver compiles for the device) or a cubin, and
  // returns its handle.
  void* loadModule(const std::string& image);
  void unloadModule(void* module);
  // The kernels of `launches` in `module`, looked up once for enqueue().
  std::vector<void*> resolve(void* module, const std::vector<KernelLaunch>& launches);
  // Queues the launches in order on the session's stream, with these pointers as parameters,
  // and returns without waiting: each kernel sees what the ones queued before it wrote.
  void enqueue(const std::vector<void*>& kernels, const std::vector<KernelLaunch>& launches,
               const std::vector<std::uint64_t>& pointers);
  // Calls `work` (which queues launches) between two CUDA events and waits for the second.
  // Returns the seconds between them: the GPU's own time for the work.
  double timed(const std::function<void()>& work);
  // Runs the kernels of `launches` in order, `runs` times over, each with the same pointers, and
  // waits for them. Returns the seconds between CUDA events recorded before the first launch and
  // after the last: the GPU's own time, without the host's waiting. The launches queue on one
  // stream, so each kernel sees what the one before it wrote.
  double runLaunches(void* module, const std::vector<KernelLaunch>& launches,
                     const std::vector<std::uint64_t>& pointers, std::int64_t runs = 1);

private:
  friend class CudaDriver;
  Session(const Functions& functions, int device, void* context);
  const Functions& functions_;
  int device_;
  void* context_;
};

} // namespace clustune::runtime::cuda
