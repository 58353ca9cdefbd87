// What a tool's --target names (DESIGN §4.6): `host`, a CPU description or a CUDA one from
// configs/targets/. A GPU target keeps a CPU side too: the host, whose cores build the kernels
// and compute the reference outputs they are checked against.
#pragma once

#include "codegen/cpu/CpuTarget.h"
#include "codegen/cuda/CudaTarget.h"

#include <optional>
#include <string>

namespace clustune::codegen {

struct Target {
  CpuTarget cpu;
  std::optional<CudaTarget> gpu; // set for a {"kind": "cuda"} description
};

// `host`, or the description at `name` by its "kind"; clustune::Error naming the file for a
// description that is neither kind or does not load.
Target resolveTarget(const std::string& name);

// The target string that records carry: "llvm -mcpu=<cpu> -threads=<n>" for a CPU,
// "cuda -arch=<sm>" for a GPU.
std::string targetLabel(const Target& target, int threads);

} // namespace clustune::codegen
