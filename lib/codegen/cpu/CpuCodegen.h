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

// The optimised module as LLVM assembly text (for tests and -v dumps).
std::string emitLlvmIr(const te::LoweredFunction& function, const CpuTarget& target);

// The optimised module as ELF object bytes.
std::string compileToObject(const te::LoweredFunction& function, const CpuTarget& target);

} // namespace clustune::codegen
