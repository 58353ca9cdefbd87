// A CPU code-generation target (DESIGN §4.6): the LLVM triple, CPU and feature string that the
// code generator compiles for, the vector width that vectorized loops should fill and the core
// count that parallel loops can use. Either detected from the running machine (`--target
// host`) or read from configs/targets/<name>.json, so that records measured on one machine can
// name the machine they belong to.
#pragma once

#include <string>

namespace clustune::codegen {

struct CpuTarget {
  std::string triple;   // e.g. "x86_64-pc-linux-gnu"
  std::string cpu;      // LLVM CPU name, e.g. "skylake-avx512", "znver4"
  std::string features; // LLVM feature string, e.g. "+avx2,+fma,-avx512f"; may be empty
  int vectorBits = 128; // widest vector registers the code should use: 128, 256 or 512
  int cores = 1;
  // Vector math through glibc's libmvec (VectorMath.h) instead of a C library call per lane:
  // set where this process can load libmvec, since the kernels are loaded here.
  bool vectorMath = false;
};

// The machine this process runs on, with every feature LLVM detects.
CpuTarget hostCpuTarget();

// The widest vector registers (512, 256 or 128 bits) of an LLVM x86 CPU name, from LLVM's table
// of what each CPU supports; 0 for a name LLVM does not know. It lets a tool compare machines it
// only knows by name, such as the CPUs that bundled cost models were trained on.
int vectorBitsOfCpu(const std::string& cpu);

// Reads {"kind":"cpu","triple":...,"mcpu":...,"features":...,"vector_bits":...,"cores":...} and
// the optional "vector_math" (true or false; by default, whether this process has libmvec).
// Other fields (cache sizes, descriptions) are for other consumers and are ignored here. A
// missing file, bad JSON or a missing or invalid field throws clustune::Error naming the file
// and the field.
CpuTarget loadCpuTarget(const std::string& path);

} // namespace clustune::codegen
