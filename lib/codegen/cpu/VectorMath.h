// Vector math for CPU kernels from glibc's libmvec (issue 18): exp, log, pow, tanh, erf and the
// trigonometric and hyperbolic functions on whole vector registers, where the C library's
// scalar functions would be called once per lane. libmvec is glibc's own, kept with it, and
// documents its accuracy (at most 4 ulp; test/unit/CpuVectorMathTest.cpp checks every function
// the emitter calls against the interpreter over the whole float range). Its functions follow
// the x86 vector function ABI: `_ZGV<isa>N<lanes><v per argument>_<name>`, isa b for 128-bit
// (SSE4), d for 256-bit (AVX2) and e for 512-bit (AVX-512) registers; glibc picks an
// implementation for the running CPU when the library is loaded.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace clustune::codegen {

// Whether this process can call libmvec: x86-64 with glibc's libmvec.so.1 loadable. Loads it
// (once) when it can.
bool vectorMathAvailable();

// libmvec's function for the C math function `scalarName` ("expf", "pow", ...) on
// `registerBits`-bit vectors of `lanes` lanes, taking `arity` vector arguments, e.g.
// ("expf", 256, 8, 1) -> "_ZGVdN8v_expf"; empty when libmvec has no such function.
std::string vectorMathName(const std::string& scalarName, int registerBits, int lanes, int arity);

// Every libmvec function vectorMathName can name, with its address in this process (none when
// libmvec is unavailable): what loaded kernels are linked against.
std::vector<std::pair<std::string, void*>> vectorMathSymbols();

} // namespace clustune::codegen
