// The CUDA code generator (DESIGN §4.5): a te::LoweredFunction whose loops are bound to GPU
// blocks and threads becomes NVPTX LLVM IR, then PTX for the target's architecture, through
// LLVM's NVPTX back end. The statement emission is the CPU back end's (codegen/llvm/); what
// differs is the frame and the bound loops:
//
// - Each statement at the function's root, below the root allocations, is one kernel (TVM's
//   host/device split): `<name>_kernel<k>`, launched in order. Every kernel takes the
//   function's arguments, then the workspace buffers, as global pointers.
// - A root allocation (a stage computed at root between two kernels) is a workspace buffer in
//   global memory, which the caller allocates; CudaModule::workspace lists them.
// - A loop bound to blockIdx or threadIdx reads the block or thread index (%ctaid, %tid); the
//   launch has the largest extent bound to each index in the kernel, and a smaller loop is
//   guarded. A vthread loop is unrolled within the thread.
// - exp, log, pow, tanh, erf and the trigonometric functions call CUDA's libdevice (its
//   __nv_ functions, linked in as bitcode: CLUSTUNE_LIBDEVICE, or nvvm/libdevice under
//   CUDA_HOME or /usr/local/cuda); a kernel without them needs no CUDA installation at all.
//
// Refused with clustune::Error: a launch beyond the target's limits, a parallel loop, a buffer
// computed for a whole block and read by its threads (that needs shared memory and barriers,
// which are not lowered yet), a block index bound inside a thread loop.
#pragma once

#include "codegen/cuda/CudaTarget.h"
#include "runtime/cuda/KernelLaunch.h"
#include "te/Stmt.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace clustune::codegen {

using CudaLaunch = runtime::cuda::KernelLaunch;

// A global-memory buffer the kernels share besides the arguments.
struct CudaWorkspace {
  std::string name;
  std::int64_t bytes = 0;
};

struct CudaModule {
  std::string ptx;
  std::string cubin; // ptxas's machine code of `ptx` (Ptxas.h); empty: the driver compiles ptx
  std::vector<CudaLaunch> launches; // in the order they run
  std::vector<CudaWorkspace> workspace;

  // What the driver loads: the cubin where ptxas made one, else the PTX.
  const std::string& image() const { return cubin.empty() ? ptx : cubin; }
};

// The module as LLVM assembly text (for tests and dumps): optimised, or as the emitter wrote it.
std::string emitNvptxIr(const te::LoweredFunction& function, const CudaTarget& target,
                        bool optimized = true);

// The PTX text of every kernel of the function, with their launches.
CudaModule compileToPtx(const te::LoweredFunction& function, const CudaTarget& target);

} // namespace clustune::codegen
