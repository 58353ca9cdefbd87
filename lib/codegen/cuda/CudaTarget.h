// A CUDA code-generation target (DESIGN §4.6): the GPU architecture that PTX is generated for
// and the limits that a kernel's launch and the GPU search space must respect. Read from
// configs/targets/<gpu>.json; there is no `host` detection, because the machine that compiles
// need not have the GPU (PTX is built and checked with ptxas on machines without one).
#pragma once

#include <cstdint>
#include <string>

namespace clustune::codegen {

struct CudaTarget {
  std::string arch = "sm_90";              // LLVM NVPTX CPU and ptxas -arch, e.g. "sm_80"
  int smCount = 1;                         // streaming multiprocessors
  int maxThreadsPerBlock = 1024;           // threads of one block, all three axes together
  int maxSharedMemoryPerBlock = 48 * 1024; // bytes without the opt-in attribute
  int registersPerBlock = 64 * 1024;       // 32-bit registers of one block
  int warpSize = 32;
};

// Reads {"kind":"cuda","arch":"sm_90","sm_count":132,"max_threads_per_block":1024,
// "max_shared_memory_per_block":49152,"registers_per_block":65536,"warp_size":32, ...}. Other
// fields (description, L2 size, clock) are for other consumers and are ignored here. A missing
// file, bad JSON, another kind or a missing or invalid field throws clustune::Error naming the
// file and the field.
CudaTarget loadCudaTarget(const std::string& path);

// The "kind" field of a target description ("cpu" or "cuda"), so that a tool can tell which
// loader a --target file is for; an Error as loadCudaTarget's for anything else.
std::string targetKind(const std::string& path);

} // namespace clustune::codegen
