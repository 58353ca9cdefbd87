// Loads an object file from compileToObject (CpuCodegen.h) into the process with LLVM's ORC JIT
// and makes its kernel callable. Every LoadedKernel gets its own JITDylib in one process-wide
// LLJIT, so kernels with the same symbol names coexist and each one's code is freed when it is
// destroyed. Undefined symbols resolve to the runtime (clustune_parallel_for), to the math
// functions generated code calls, and then to anything else the process exports (malloc, free,
// memset, ...).
//
// Loading is thread-safe: a builder may compile and load candidates from several threads.
// Running a kernel is as thread-safe as the kernel (it writes its output buffers).
#pragma once

#include <string>

namespace clustune::codegen {

class LoadedKernel {
public:
  // Throws clustune::Error when the object cannot be linked or lacks `functionName`.
  LoadedKernel(const std::string& objectBytes, const std::string& functionName);
  ~LoadedKernel();
  LoadedKernel(LoadedKernel&& other) noexcept;
  LoadedKernel& operator=(LoadedKernel&& other) noexcept;
  LoadedKernel(const LoadedKernel&) = delete;
  LoadedKernel& operator=(const LoadedKernel&) = delete;

  // arguments[i] points to the data of the kernel's i-th argument buffer.
  void run(void** arguments) const { entry_(arguments); }
  const std::string& functionName() const { return functionName_; }

private:
  using Entry = void (*)(void** arguments);
  void release();

  void* dylib_ = nullptr; // the kernel's llvm::orc::JITDylib; opaque to keep LLVM out of here
  Entry entry_ = nullptr;
  std::string functionName_;
};

} // namespace clustune::codegen
