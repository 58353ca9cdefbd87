// Vector math through libmvec (codegen/cpu/VectorMath.h): vectorized kernels call its
// functions instead of the C library per lane, and agree with the loop interpreter (the
// executable meaning of the IR, <cmath> in double rounded to float) within a few ulp over the
// whole float range, special values included.
#include "CpuCodegenTestSupport.h"
#include "codegen/cpu/VectorMath.h"
#include "schedule/LoopInterpreter.h"

#include <bit>
#include <cstdio>
#include <gtest/gtest.h>

using namespace clustune;
using namespace clustune::te;
using namespace clustune::codegen;
using namespace clustune::codegen::testing;

namespace {

// A float's place on the number line in units of the last place, for the ulp distance.
std::int64_t ordered(float value) {
  const auto bits = static_cast<std::int64_t>(std::bit_cast<std::uint32_t>(value));
  return bits & 0x80000000 ? 0x80000000 - bits : bits;
}

std::int64_t ulpDistance(float a, float b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b) ? 0 : INT64_MAX;
  return std::llabs(ordered(a) - ordered(b));
}

// Special values, then 2^16 bit patterns spread over all 2^32 (both signs, every exponent,
// subnormals, infinities and NaNs).
std::vector<float> wholeFloatRange() {
  std::vector<float> values{0.0f,
                            -0.0f,
                            1.0f,
                            -1.0f,
                            INFINITY,
                            -INFINITY,
                            NAN,
                            std::numeric_limits<float>::denorm_min(),
                            -std::numeric_limits<float>::denorm_min(),
                            std::numeric_limits<float>::max(),
                            std::numeric_limits<float>::lowest(),
                            88.7f,
                            -103.9f,
                            0.5f,
                            1e-30f,
                            -1e-30f};
  while (values.size() % 16 != 0)
    values.push_back(0.25f);
  for (std::uint32_t i = 0; i < (1u << 16); ++i)
    values.push_back(std::bit_cast<float>(i * 2654435761u));
  return values;
}

LoweredFunction elementwise(const std::string& name, CallFunction function, std::int64_t n,
                            ForKind kind) {
  const Buffer x = argument("X", n), y = argument("Y", n), out = argument("Out", n);
  const Var io = makeVar("io"), ii = makeVar("ii");
  const Expr i = v(io) * c(16) + v(ii);
  std::vector<Expr> operands{bufferLoad(x, i)};
  if (function == CallFunction::Pow)
    operands.push_back(bufferLoad(y, i));
  return {name,
          {x, y, out},
          makeFor(io, n / 16, ForKind::Serial,
                  makeFor(ii, 16, kind, makeStore(out, i, call(function, operands))))};
}

} // namespace

TEST(CpuVectorMath, NamesFollowTheVectorFunctionAbi) {
  EXPECT_EQ(vectorMathName("expf", 256, 8, 1), "_ZGVdN8v_expf");
  EXPECT_EQ(vectorMathName("erff", 512, 16, 1), "_ZGVeN16v_erff");
  EXPECT_EQ(vectorMathName("pow", 128, 2, 2), "_ZGVbN2vv_pow");
  EXPECT_EQ(vectorMathName("expf", 256, 4, 1), ""); // 4 floats are not 256 bits
  EXPECT_EQ(vectorMathName("fmodf", 256, 8, 2), "");
  EXPECT_EQ(vectorMathName("expf", 64, 2, 1), "");
}

TEST(CpuVectorMath, VectorizedKernelsCallLibmvec) {
  if (!host().vectorMath)
    GTEST_SKIP() << "no libmvec in this process";
  const std::string ir =
      emitLlvmIr(elementwise("k", CallFunction::Erf, 64, ForKind::Vectorized), host(), false);
  EXPECT_NE(ir.find("@_ZGV"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("@erff("), std::string::npos) << ir;
  // A scalar loop keeps the C library's function.
  const std::string scalar =
      emitLlvmIr(elementwise("k", CallFunction::Erf, 64, ForKind::Serial), host(), false);
  EXPECT_EQ(scalar.find("@_ZGV"), std::string::npos) << scalar;
  // Without libmvec, vector code calls the scalar function per lane.
  CpuTarget without = host();
  without.vectorMath = false;
  const std::string perLane =
      emitLlvmIr(elementwise("k", CallFunction::Erf, 64, ForKind::Vectorized), without, false);
  EXPECT_EQ(perLane.find("@_ZGV"), std::string::npos) << perLane;
}

TEST(CpuVectorMath, AgreesWithTheInterpreterOverTheWholeFloatRange) {
  const std::vector<float> inputs = wholeFloatRange();
  const auto n = static_cast<std::int64_t>(inputs.size());
  std::vector<float> exponents(inputs.size());
  for (std::size_t i = 0; i < exponents.size(); ++i)
    exponents[i] = static_cast<float>(static_cast<int>(i % 33) - 16) * 0.37f;
  struct Case {
    CallFunction function;
    std::int64_t maxUlp; // libmvec's documented bound is 4 ulp; sigmoid adds two roundings
  };
  const Case cases[] = {
      {CallFunction::Exp, 4},   {CallFunction::Log, 4},  {CallFunction::Pow, 4},
      {CallFunction::Tanh, 4},  {CallFunction::Erf, 4},  {CallFunction::Sigmoid, 6},
      {CallFunction::Sin, 4},   {CallFunction::Cos, 4},  {CallFunction::Tan, 4},
      {CallFunction::Asin, 4},  {CallFunction::Acos, 4}, {CallFunction::Atan, 4},
      {CallFunction::Sinh, 4},  {CallFunction::Cosh, 4}, {CallFunction::Asinh, 4},
      {CallFunction::Acosh, 4}, {CallFunction::Atanh, 4}};
  for (const Case& test : cases) {
    const std::string name = callFunctionName(test.function);
    SCOPED_TRACE(name);
    const LoweredFunction function =
        elementwise("vector_" + name, test.function, n, ForKind::Vectorized);
    TensorData x(DataType::Float32, {n}), y(DataType::Float32, {n}),
        expected(DataType::Float32, {n});
    for (std::int64_t i = 0; i < n; ++i) {
      x.set(i, inputs[i]);
      y.set(i, exponents[i]);
    }
    schedule::runLoweredFunction(function, {&x, &y, &expected});
    std::vector<float> actual(inputs.size());
    std::vector<void*> pointers{const_cast<float*>(inputs.data()), exponents.data(), actual.data()};
    compile(function).run(pointers.data());
    std::int64_t worst = 0;
    std::size_t worstAt = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t distance = ulpDistance(actual[i], static_cast<float>(expected.get(i)));
      if (distance > worst) {
        worst = distance;
        worstAt = static_cast<std::size_t>(i);
      }
    }
    std::printf("%-8s %lld ulp at most\n", name.c_str(), static_cast<long long>(worst));
    EXPECT_LE(worst, test.maxUlp) << name << "(" << inputs[worstAt] << ") = " << actual[worstAt]
                                  << ", the interpreter gives " << expected.get(worstAt);
  }
}
