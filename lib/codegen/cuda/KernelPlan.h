// Internal to lib/codegen/cuda: how a lowered function splits into kernels (CudaCodegen.h) and
// the launch each one needs, before any LLVM IR exists. Plain data, so tests can check it.
#pragma once

#include "codegen/cuda/CudaCodegen.h"

namespace clustune::codegen::cuda {

struct KernelPlan {
  te::Stmt body;
  CudaLaunch launch;
};

struct FunctionPlan {
  std::vector<te::Buffer> workspace; // the root allocations, outermost first
  std::vector<KernelPlan> kernels;
};

// Splits `function` into kernels and finds their launches; throws clustune::Error for what the
// CUDA back end refuses (see CudaCodegen.h) and for a launch beyond the target's limits.
FunctionPlan planKernels(const te::LoweredFunction& function, const CudaTarget& target);

} // namespace clustune::codegen::cuda
