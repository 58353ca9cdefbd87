// One kernel of a PTX module and the shape it is launched with: what the CUDA code generator
// plans (codegen::CudaModule) and what the driver launches (CudaDriver.h). Plain data.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace clustune::runtime::cuda {

struct KernelLaunch {
  std::string kernel; // the PTX entry point
  std::array<std::int64_t, 3> grid = {1, 1, 1};
  std::array<std::int64_t, 3> block = {1, 1, 1};

  friend bool operator==(const KernelLaunch&, const KernelLaunch&) = default;
};

} // namespace clustune::runtime::cuda
