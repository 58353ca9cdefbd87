// PTX to machine code (cubin) with the CUDA toolkit's ptxas, on the CPU cores that build
// candidates. Without it the driver compiles each module's PTX when the module is loaded, inside
// the one worker that owns the GPU: measured on the H200 machine, that serial step took 0.40 s
// per candidate and held GPU measurement of resnet50's tasks to 1.3-1.8 candidates per second
// while 15 of the 16 cores waited (docs/cuda.md).
#pragma once

#include "codegen/cuda/CudaCodegen.h"

#include <optional>
#include <string>

namespace clustune::codegen {

// The ptxas to use: $CLUSTUNE_PTXAS when set and not empty (a path; "none" turns assembly off),
// else ptxas on $PATH, else bin/ptxas under $CUDA_HOME or /usr/local/cuda. nullopt when there is
// none: modules then carry PTX alone and the driver compiles it.
std::optional<std::string> findPtxas();

// ptxas -arch=<arch> -O3 on `ptx`: the cubin's bytes. Throws clustune::Error with ptxas's
// messages when it refuses the PTX or cannot run.
std::string assembleCubin(const std::string& ptx, const std::string& arch,
                          const std::string& ptxas);

// Sets module.cubin from module.ptx for target.arch when findPtxas() finds ptxas (looked up
// once per process); leaves it empty otherwise.
void attachCubin(CudaModule& module, const CudaTarget& target);

} // namespace clustune::codegen
