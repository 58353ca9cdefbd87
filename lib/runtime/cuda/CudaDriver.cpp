// See CudaDriver.h. The driver's types and entry points are declared here with the signatures
// of CUDA's cuda.h (the versioned _v2 symbols where the driver has them), so that building
// needs no CUDA headers either.
#include "runtime/cuda/CudaDriver.h"

#include "support/Error.h"

#include <dlfcn.h>

namespace clustune::runtime::cuda {
namespace {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = void*;
using CUmodule = void*;
using CUfunction = void*;
using CUevent = void*;
using CUstream = void*;

constexpr CUresult kSuccess = 0;
constexpr CUresult kStubLibrary = 34; // CUDA_ERROR_STUB_LIBRARY
// The CUresults after which the context cannot be used again (cuda.h: "the process must be
// terminated and relaunched"): LAUNCH_TIMEOUT, ILLEGAL_ADDRESS, HARDWARE_STACK_ERROR,
// ILLEGAL_INSTRUCTION, MISALIGNED_ADDRESS, INVALID_ADDRESS_SPACE, INVALID_PC, LAUNCH_FAILED.
constexpr CUresult kContextLostResults[] = {702, 700, 714, 715, 716, 717, 718, 719};
// CUdevice_attribute values.
constexpr int kMaxThreadsPerBlock = 1;
constexpr int kMaxSharedMemoryPerBlock = 8;
constexpr int kMultiprocessorCount = 16;
constexpr int kComputeCapabilityMajor = 75;
constexpr int kComputeCapabilityMinor = 76;
// CUjit_option values.
constexpr int kJitErrorLogBuffer = 5;
constexpr int kJitErrorLogBufferSizeBytes = 6;

} // namespace

bool CudaError::contextLost() const {
  for (CUresult lost : kContextLostResults)
    if (code_ == lost)
      return true;
  return false;
}

struct CudaDriver::Functions {
  CUresult (*init)(unsigned);
  CUresult (*driverGetVersion)(int*);
  CUresult (*getErrorString)(CUresult, const char**);
  CUresult (*deviceGetCount)(int*);
  CUresult (*deviceGet)(CUdevice*, int);
  CUresult (*deviceGetName)(char*, int, CUdevice);
  CUresult (*deviceGetAttribute)(int*, int, CUdevice);
  CUresult (*primaryContextRetain)(CUcontext*, CUdevice);
  CUresult (*primaryContextRelease)(CUdevice);
  CUresult (*contextSetCurrent)(CUcontext);
  CUresult (*contextSynchronize)();
  CUresult (*memAlloc)(CUdeviceptr*, std::size_t);
  CUresult (*memFree)(CUdeviceptr);
  CUresult (*memcpyHtoD)(CUdeviceptr, const void*, std::size_t);
  CUresult (*memcpyDtoH)(void*, CUdeviceptr, std::size_t);
  CUresult (*memsetD8)(CUdeviceptr, unsigned char, std::size_t);
  CUresult (*moduleLoadDataEx)(CUmodule*, const void*, unsigned, int*, void**);
  CUresult (*moduleUnload)(CUmodule);
  CUresult (*moduleGetFunction)(CUfunction*, CUmodule, const char*);
  CUresult (*launchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                           unsigned, CUstream, void**, void**);
  CUresult (*eventCreate)(CUevent*, unsigned);
  CUresult (*eventRecord)(CUevent, CUstream);
  CUresult (*eventSynchronize)(CUevent);
  CUresult (*eventElapsedTime)(float*, CUevent, CUevent);
  CUresult (*eventDestroy)(CUevent);

  // Throws the driver's message for a failed call.
  void check(CUresult result, const std::string& what) const {
    if (result == kSuccess)
      return;
    const char* message = nullptr;
    if (getErrorString(result, &message) != kSuccess || !message)
      message = "unknown error";
    throw CudaError("CUDA: " + what + " failed: " + message + " (CUresult " +
                        std::to_string(result) + ")",
                    result);
  }
};

namespace {

template <class Function>
void bind(void* handle, const char* symbol, Function& function, const std::string& library) {
  function = reinterpret_cast<Function>(dlsym(handle, symbol));
  if (!function)
    throw Error("CUDA is unavailable: " + library + " has no " + symbol +
                ", so it is not NVIDIA's driver library");
}

} // namespace

std::unique_ptr<CudaDriver> CudaDriver::open(const std::string& library) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* reason = dlerror();
    throw Error("CUDA is unavailable on this machine: cannot load " + library +
                ", the NVIDIA driver's library (" + (reason ? reason : "unknown reason") + ")");
  }
  auto functions = std::make_unique<Functions>();
  try {
    Functions& f = *functions;
    bind(handle, "cuInit", f.init, library);
    bind(handle, "cuDriverGetVersion", f.driverGetVersion, library);
    bind(handle, "cuGetErrorString", f.getErrorString, library);
    bind(handle, "cuDeviceGetCount", f.deviceGetCount, library);
    bind(handle, "cuDeviceGet", f.deviceGet, library);
    bind(handle, "cuDeviceGetName", f.deviceGetName, library);
    bind(handle, "cuDeviceGetAttribute", f.deviceGetAttribute, library);
    bind(handle, "cuDevicePrimaryCtxRetain", f.primaryContextRetain, library);
    bind(handle, "cuDevicePrimaryCtxRelease_v2", f.primaryContextRelease, library);
    bind(handle, "cuCtxSetCurrent", f.contextSetCurrent, library);
    bind(handle, "cuCtxSynchronize", f.contextSynchronize, library);
    bind(handle, "cuMemAlloc_v2", f.memAlloc, library);
    bind(handle, "cuMemFree_v2", f.memFree, library);
    bind(handle, "cuMemcpyHtoD_v2", f.memcpyHtoD, library);
    bind(handle, "cuMemcpyDtoH_v2", f.memcpyDtoH, library);
    bind(handle, "cuMemsetD8_v2", f.memsetD8, library);
    bind(handle, "cuModuleLoadDataEx", f.moduleLoadDataEx, library);
    bind(handle, "cuModuleUnload", f.moduleUnload, library);
    bind(handle, "cuModuleGetFunction", f.moduleGetFunction, library);
    bind(handle, "cuLaunchKernel", f.launchKernel, library);
    bind(handle, "cuEventCreate", f.eventCreate, library);
    bind(handle, "cuEventRecord", f.eventRecord, library);
    bind(handle, "cuEventSynchronize", f.eventSynchronize, library);
    bind(handle, "cuEventElapsedTime", f.eventElapsedTime, library);
    bind(handle, "cuEventDestroy_v2", f.eventDestroy, library);
    const CUresult initialised = f.init(0);
    if (initialised == kStubLibrary)
      throw Error("CUDA is unavailable: " + library +
                  " is the CUDA toolkit's stub library, which serves linking, not an NVIDIA "
                  "driver");
    f.check(initialised, "cuInit");
  } catch (...) {
    dlclose(handle);
    throw;
  }
  return std::unique_ptr<CudaDriver>(new CudaDriver(handle, std::move(functions)));
}

CudaDriver::CudaDriver(void* handle, std::unique_ptr<Functions> functions)
    : handle_(handle), functions_(std::move(functions)) {}

CudaDriver::~CudaDriver() {
  dlclose(handle_);
}

int CudaDriver::driverVersion() const {
  int version = 0;
  functions_->check(functions_->driverGetVersion(&version), "cuDriverGetVersion");
  return version;
}

std::vector<CudaDevice> CudaDriver::devices() const {
  const Functions& f = *functions_;
  int count = 0;
  f.check(f.deviceGetCount(&count), "cuDeviceGetCount");
  std::vector<CudaDevice> devices;
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    CUdevice device = 0;
    f.check(f.deviceGet(&device, ordinal), "cuDeviceGet");
    char name[256] = {};
    f.check(f.deviceGetName(name, sizeof(name) - 1, device), "cuDeviceGetName");
    CudaDevice described{.ordinal = ordinal, .name = name};
    const auto attribute = [&](int which, int& value) {
      f.check(f.deviceGetAttribute(&value, which, device), "cuDeviceGetAttribute");
    };
    attribute(kComputeCapabilityMajor, described.computeCapabilityMajor);
    attribute(kComputeCapabilityMinor, described.computeCapabilityMinor);
    attribute(kMultiprocessorCount, described.smCount);
    attribute(kMaxThreadsPerBlock, described.maxThreadsPerBlock);
    attribute(kMaxSharedMemoryPerBlock, described.maxSharedMemoryPerBlock);
    devices.push_back(std::move(described));
  }
  return devices;
}

std::unique_ptr<CudaDriver::Session> CudaDriver::session(int ordinal) {
  const Functions& f = *functions_;
  CUdevice device = 0;
  f.check(f.deviceGet(&device, ordinal), "cuDeviceGet(" + std::to_string(ordinal) + ")");
  CUcontext context = nullptr;
  f.check(f.primaryContextRetain(&context, device), "cuDevicePrimaryCtxRetain");
  const CUresult current = f.contextSetCurrent(context);
  if (current != kSuccess) {
    f.primaryContextRelease(device);
    f.check(current, "cuCtxSetCurrent");
  }
  return std::unique_ptr<Session>(new Session(f, device, context));
}

CudaDriver::Session::Session(const Functions& functions, int device, void* context)
    : functions_(functions), device_(device), context_(context) {}

CudaDriver::Session::~Session() {
  functions_.contextSetCurrent(nullptr);
  functions_.primaryContextRelease(device_);
}

std::uint64_t CudaDriver::Session::allocate(std::size_t bytes) {
  CUdeviceptr address = 0;
  functions_.check(functions_.memAlloc(&address, bytes),
                   "cuMemAlloc of " + std::to_string(bytes) + " bytes");
  return address;
}

void CudaDriver::Session::free(std::uint64_t address) {
  functions_.check(functions_.memFree(address), "cuMemFree");
}

void CudaDriver::Session::copyToDevice(std::uint64_t destination, const void* source,
                                       std::size_t bytes) {
  functions_.check(functions_.memcpyHtoD(destination, source, bytes), "cuMemcpyHtoD");
}

void CudaDriver::Session::copyToHost(void* destination, std::uint64_t source, std::size_t bytes) {
  functions_.check(functions_.memcpyDtoH(destination, source, bytes), "cuMemcpyDtoH");
}

void CudaDriver::Session::zero(std::uint64_t address, std::size_t bytes) {
  functions_.check(functions_.memsetD8(address, 0, bytes), "cuMemsetD8");
}

void* CudaDriver::Session::loadModule(const std::string& image) {
  // The JIT's own messages (ptxas's errors) say more than the CUresult.
  std::string log(8192, '\0');
  int options[] = {kJitErrorLogBuffer, kJitErrorLogBufferSizeBytes};
  void* values[] = {log.data(), reinterpret_cast<void*>(log.size())};
  CUmodule module = nullptr;
  const CUresult result = functions_.moduleLoadDataEx(&module, image.c_str(), 2, options, values);
  if (result != kSuccess) {
    log.resize(log.find('\0'));
    try {
      functions_.check(result, "loading the module");
    } catch (const Error& error) {
      throw Error(error.message() + (log.empty() ? "" : ": " + log));
    }
  }
  return module;
}

void CudaDriver::Session::unloadModule(void* module) {
  functions_.check(functions_.moduleUnload(module), "cuModuleUnload");
}

namespace {

// Two CUDA events, destroyed with the scope.
class EventPair {
public:
  explicit EventPair(const CudaDriver::Functions& functions) : functions_(functions) {
    functions_.check(functions_.eventCreate(&start, 0), "cuEventCreate");
    if (const CUresult created = functions_.eventCreate(&stop, 0); created != kSuccess) {
      functions_.eventDestroy(start);
      functions_.check(created, "cuEventCreate");
    }
  }
  ~EventPair() {
    functions_.eventDestroy(start);
    functions_.eventDestroy(stop);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  CUevent start = nullptr, stop = nullptr;

private:
  const CudaDriver::Functions& functions_;
};

unsigned launchDimension(std::int64_t extent, const std::string& kernel) {
  if (extent < 1 || extent > std::int64_t{1} << 31)
    throw Error("cannot launch " + kernel + " with a dimension of " + std::to_string(extent));
  return static_cast<unsigned>(extent);
}

} // namespace

std::vector<void*> CudaDriver::Session::resolve(void* module,
                                                const std::vector<KernelLaunch>& launches) {
  std::vector<void*> kernels;
  for (const KernelLaunch& launch : launches) {
    CUfunction function = nullptr;
    functions_.check(functions_.moduleGetFunction(&function, module, launch.kernel.c_str()),
                     "finding kernel " + launch.kernel);
    kernels.push_back(function);
  }
  return kernels;
}

void CudaDriver::Session::enqueue(const std::vector<void*>& kernels,
                                  const std::vector<KernelLaunch>& launches,
                                  const std::vector<std::uint64_t>& pointers) {
  std::vector<CUdeviceptr> values(pointers.begin(), pointers.end());
  std::vector<void*> parameters;
  for (CUdeviceptr& value : values)
    parameters.push_back(&value);
  for (std::size_t k = 0; k < launches.size(); ++k) {
    const KernelLaunch& launch = launches[k];
    // The driver copies the parameter values at the launch, so `values` may go after it.
    functions_.check(functions_.launchKernel(kernels.at(k),
                                             launchDimension(launch.grid[0], launch.kernel),
                                             launchDimension(launch.grid[1], launch.kernel),
                                             launchDimension(launch.grid[2], launch.kernel),
                                             launchDimension(launch.block[0], launch.kernel),
                                             launchDimension(launch.block[1], launch.kernel),
                                             launchDimension(launch.block[2], launch.kernel), 0,
                                             nullptr, parameters.data(), nullptr),
                     "launching " + launch.kernel);
  }
}

double CudaDriver::Session::timed(const std::function<void()>& work) {
  const EventPair events(functions_);
  functions_.check(functions_.eventRecord(events.start, nullptr), "cuEventRecord");
  work();
  functions_.check(functions_.eventRecord(events.stop, nullptr), "cuEventRecord");
  functions_.check(functions_.eventSynchronize(events.stop), "running the kernels");
  float milliseconds = 0;
  functions_.check(functions_.eventElapsedTime(&milliseconds, events.start, events.stop),
                   "cuEventElapsedTime");
  return milliseconds / 1000.0;
}

double CudaDriver::Session::runLaunches(void* module, const std::vector<KernelLaunch>& launches,
                                        const std::vector<std::uint64_t>& pointers,
                                        std::int64_t runs) {
  const std::vector<void*> kernels = resolve(module, launches);
  return timed([&] {
    for (std::int64_t run = 0; run < runs; ++run)
      enqueue(kernels, launches, pointers);
  });
}

} // namespace clustune::runtime::cuda
