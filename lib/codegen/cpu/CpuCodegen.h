// The x86 code generator (DESIGN §4.5): a te::LoweredFunction becomes LLVM IR with explicit
// vector code for Vectorized loops, our own unrolling of Unrolled loops and outlined Parallel
// loops that run on runtime::ThreadPool; LLVM's O3 pipeline optimises it for the target CPU and
// the target machine emits an ELF object, which JitLoader.h loads and runs.
//
// The compiled function is `void <name>(void** arguments)`: arguments[i] points to the data of
// LoweredFunction::arguments[i] (row-major, TensorData's layout), and the buffers must not
// overlap. Parallel loops call the C function clustune_parallel_for (runtime/ThreadPool.h);
// erf and tanh call the C library's erff/tanhf, and exp, log and pow lower to expf, logf and
// powf where the CPU has no instruction for them. Floating-point code may contract a*b+c into
// an FMA and is otherwise evaluated exactly as written.
//
// Both functions are thread-safe: every call builds in its own LLVMContext. They throw
// clustune::Error for a function the generator cannot compile (an unbound variable or buffer,
// an unlowered Load or Reduce, an unknown target triple or CPU).
#pragma once

#include "codegen/cpu/CpuTarget.h"
#include "te/Stmt.h"

#include <string>

namespace clustune::codegen {

// Where one compilation's time went, in seconds (for benchmarks and the measurement's profile).
struct CompileStageSeconds {
  double emit = 0;     // the module from the loop nest, and the verifier
  double optimize = 0; // the O3 pipeline
  double codegen = 0;  // instruction selection to object bytes (or printing the module)
};

// The module as LLVM assembly text (for tests, benchmarks and dumps): optimised, or as the
// emitter wrote it, before O3.
std::string emitLlvmIr(const te::LoweredFunction& function, const CpuTarget& target,
                       bool optimized = true);

// The optimised module as ELF object bytes; `stages`, when given, receives the time of each part.
std::string compileToObject(const te::LoweredFunction& function, const CpuTarget& target,
                            CompileStageSeconds* stages = nullptr);

} // namespace clustune::codegen
