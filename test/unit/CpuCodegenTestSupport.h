// Helpers shared by the CPU code generator's tests (CpuCodegenTest.cpp,
// CpuCodegenArithmeticTest.cpp): compile a loop nest for the host, load it and run it on
// plain C++ arrays.
#pragma once

#include "codegen/cpu/CpuCodegen.h"
#include "codegen/cpu/JitLoader.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace clustune::codegen::testing {

using graph::DataType;
using te::Buffer;
using te::BufferScope;
using te::Expr;
using te::LoweredFunction;
using te::Var;

inline const CpuTarget& host() {
  static const CpuTarget target = codegen::hostCpuTarget();
  return target;
}

inline LoadedKernel compile(const LoweredFunction& function) {
  return LoadedKernel(codegen::compileToObject(function, host()), function.name);
}

inline void run(const LoadedKernel& kernel, std::vector<void*> arguments) {
  kernel.run(arguments.data());
}

inline Buffer argument(const std::string& name, std::int64_t elements,
                       DataType dtype = DataType::Float32) {
  return te::makeBuffer(name, dtype, elements, BufferScope::Argument);
}

inline Expr v(const Var& var) {
  return te::varExpr(var);
}
inline Expr c(std::int64_t value) {
  return te::intImm(value);
}

// a * b + c as the generated code may compute it: contracted into one FMA, or not.
inline bool isMultiplyAdd(float result, float a, float b, float c) {
  return result == std::fma(a, b, c) || result == a * b + c;
}

inline std::vector<float> randomFloats(std::size_t count, float low, float high, unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> distribution(low, high);
  std::vector<float> values(count);
  for (float& value : values)
    value = distribution(generator);
  return values;
}

} // namespace clustune::codegen::testing
