// The x86 code generator's arithmetic: every operation kind, function and dtype conversion,
// in vector lanes and in scalar loops, against values computed here in plain C++.
#include "CpuCodegenTestSupport.h"
#include "support/Error.h"

#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>
#include <limits>

using namespace clustune;
using namespace clustune::te;
using namespace clustune::codegen::testing;
using codegen::LoadedKernel;
using graph::DataType;

TEST(CpuCodegenArithmetic, ReluAndLeakyReluWithSelectAndMaxVectorized) {
  const Buffer a = argument("A", 64), relu = argument("R", 64), leaky = argument("L", 64);
  const Var i = makeVar("i");
  const Expr x = bufferLoad(a, v(i));
  const LoadedKernel kernel = compile(
      {"relu",
       {a, relu, leaky},
       makeFor(i, 64, ForKind::Vectorized,
               makeSequence(
                   {makeStore(relu, v(i), maximum(x, floatImm(0.0))),
                    makeStore(leaky, v(i), select(x > floatImm(0.0), x, x * floatImm(0.125)))}))});
  std::vector<float> input = randomFloats(64, -3, 3, 6);
  input[7] = std::numeric_limits<float>::quiet_NaN();
  input[8] = -0.0f;
  std::vector<float> reluOut(64), leakyOut(64);
  run(kernel, {input.data(), reluOut.data(), leakyOut.data()});
  for (int k = 0; k < 64; ++k) {
    // fmax semantics, as te/Interpreter.h: a NaN operand yields the other operand.
    ASSERT_EQ(reluOut[k], std::fmax(input[k], 0.0f)) << k;
    const float expectedLeaky = input[k] > 0 ? input[k] : input[k] * 0.125f;
    if (std::isnan(expectedLeaky))
      ASSERT_TRUE(std::isnan(leakyOut[k])) << k;
    else
      ASSERT_EQ(leakyOut[k], expectedLeaky) << k;
  }
}

TEST(CpuCodegenArithmetic, TranscendentalFunctionsMatchCmath) {
  constexpr int n = 256;
  const Buffer a = argument("A", n);
  std::vector<Buffer> outputs;
  const CallFunction functions[] = {CallFunction::Exp, CallFunction::Erf, CallFunction::Tanh,
                                    CallFunction::Sigmoid};
  for (CallFunction function : functions)
    outputs.push_back(argument(callFunctionName(function), n));
  const Var io = makeVar("io"), ii = makeVar("ii");
  const Expr i = v(io) * c(16) + v(ii);
  std::vector<Stmt> stores;
  for (std::size_t f = 0; f < outputs.size(); ++f)
    stores.push_back(makeStore(outputs[f], i, call(functions[f], {bufferLoad(a, i)})));
  std::vector<Buffer> arguments{a};
  arguments.insert(arguments.end(), outputs.begin(), outputs.end());
  const LoadedKernel kernel =
      compile({"transcendental", arguments,
               makeFor(io, n / 16, ForKind::Serial,
                       makeFor(ii, 16, ForKind::Vectorized, makeSequence(stores)))});
  std::vector<float> input = randomFloats(n, -8, 8, 7);
  input[0] = 0.0f;
  input[1] = -20.0f; // sigmoid(-20) is tiny: checks that it is not flushed to zero
  std::vector<std::vector<float>> results(outputs.size(), std::vector<float>(n));
  std::vector<void*> pointers{input.data()};
  for (auto& result : results)
    pointers.push_back(result.data());
  kernel.run(pointers.data());
  for (int k = 0; k < n; ++k) {
    const double x = input[k];
    // exp: glibc's expf is correctly rounded in practice; 1e-6 relative is ~8 ulp.
    EXPECT_NEAR(results[0][k], std::exp(x), 1e-6 * std::exp(x)) << "exp " << x;
    // erf and tanh: glibc's erff/tanhf are within 1-2 ulp; values lie in [-1, 1], so 1e-6
    // absolute with a relative term for tiny values.
    EXPECT_NEAR(results[1][k], std::erf(x), 1e-6 * std::fabs(std::erf(x)) + 1e-7) << "erf " << x;
    EXPECT_NEAR(results[2][k], std::tanh(x), 1e-6 * std::fabs(std::tanh(x)) + 1e-7) << "tanh " << x;
    // sigmoid = 1 / (1 + exp(-x)): exp's error plus two roundings stays within 1e-6 relative.
    const double sigmoid = 1.0 / (1.0 + std::exp(-x));
    EXPECT_NEAR(results[3][k], sigmoid, 1e-6 * sigmoid) << "sigmoid " << x;
  }
}

// The trigonometric and hyperbolic functions call the C library lane by lane in a vectorized
// loop; fmod is frem. Arguments are mapped into each function's domain.
TEST(CpuCodegenArithmetic, TrigonometricFunctionsAndFmodMatchCmath) {
  constexpr int n = 64;
  const Buffer a = argument("A", n);
  struct Case {
    CallFunction function;
    double (*reference)(double);
    double scale, offset; // the argument is x * scale + offset, x in [-1, 1]
  };
  const std::vector<Case> cases{
      {CallFunction::Sin, [](double x) { return std::sin(x); }, 4, 0},
      {CallFunction::Cos, [](double x) { return std::cos(x); }, 4, 0},
      {CallFunction::Tan, [](double x) { return std::tan(x); }, 1.2, 0},
      {CallFunction::Asin, [](double x) { return std::asin(x); }, 0.99, 0},
      {CallFunction::Acos, [](double x) { return std::acos(x); }, 0.99, 0},
      {CallFunction::Atan, [](double x) { return std::atan(x); }, 10, 0},
      {CallFunction::Sinh, [](double x) { return std::sinh(x); }, 3, 0},
      {CallFunction::Cosh, [](double x) { return std::cosh(x); }, 3, 0},
      {CallFunction::Asinh, [](double x) { return std::asinh(x); }, 10, 0},
      {CallFunction::Acosh, [](double x) { return std::acosh(x); }, 4, 5},
      {CallFunction::Atanh, [](double x) { return std::atanh(x); }, 0.99, 0}};
  std::vector<Buffer> outputs;
  for (const Case& test : cases)
    outputs.push_back(argument(callFunctionName(test.function), n));
  const Buffer remainder = argument("fmod", n);
  const Var io = makeVar("io"), ii = makeVar("ii");
  const Expr i = v(io) * c(16) + v(ii);
  std::vector<Stmt> stores;
  for (std::size_t f = 0; f < cases.size(); ++f)
    stores.push_back(
        makeStore(outputs[f], i,
                  call(cases[f].function,
                       {bufferLoad(a, i) * floatImm(cases[f].scale) + floatImm(cases[f].offset)})));
  stores.push_back(makeStore(
      remainder, i, call(CallFunction::Fmod, {bufferLoad(a, i) * floatImm(7.0), floatImm(-2.5)})));
  std::vector<Buffer> arguments{a};
  arguments.insert(arguments.end(), outputs.begin(), outputs.end());
  arguments.push_back(remainder);
  const LoadedKernel kernel =
      compile({"trigonometric", arguments,
               makeFor(io, n / 16, ForKind::Serial,
                       makeFor(ii, 16, ForKind::Vectorized, makeSequence(stores)))});
  std::vector<float> input = randomFloats(n, -1, 1, 11);
  std::vector<std::vector<float>> results(outputs.size() + 1, std::vector<float>(n));
  std::vector<void*> pointers{input.data()};
  for (auto& result : results)
    pointers.push_back(result.data());
  kernel.run(pointers.data());
  for (int k = 0; k < n; ++k) {
    for (std::size_t f = 0; f < cases.size(); ++f) {
      // The argument as the kernel computes it, in float32; glibc's float functions are within
      // a few ulp.
      const float argument = static_cast<float>(input[k] * static_cast<float>(cases[f].scale)) +
                             static_cast<float>(cases[f].offset);
      const double expected = cases[f].reference(argument);
      EXPECT_NEAR(results[f][k], expected, 2e-6 * std::fabs(expected) + 1e-7)
          << callFunctionName(cases[f].function) << "(" << argument << ")";
    }
    const float dividend = input[k] * 7.0f;
    EXPECT_EQ(results[cases.size()][k], std::fmod(dividend, -2.5f)) << "fmod " << dividend;
  }
}

TEST(CpuCodegenArithmetic, ElementaryFunctionsInScalarLoop) {
  const Buffer a = argument("A", 8), out = argument("C", 8 * 8);
  const Var i = makeVar("i");
  const Expr x = bufferLoad(a, v(i));
  const std::vector<Expr> values{
      call(CallFunction::Log, {call(CallFunction::Abs, {x})}),
      call(CallFunction::Sqrt, {call(CallFunction::Abs, {x})}),
      call(CallFunction::Floor, {x}),
      call(CallFunction::Ceil, {x}),
      call(CallFunction::Round, {x}),
      call(CallFunction::Neg, {x}),
      call(CallFunction::Pow, {call(CallFunction::Abs, {x}), floatImm(1.5)}),
      floorMod(x, floatImm(2.0))};
  std::vector<Stmt> stores;
  for (std::size_t f = 0; f < values.size(); ++f)
    stores.push_back(makeStore(out, v(i) * c(8) + c(f), values[f]));
  const LoadedKernel kernel =
      compile({"elementary", {a, out}, makeFor(i, 8, ForKind::Serial, makeSequence(stores))});
  std::vector<float> input{2.5f, 3.5f, -2.5f, -0.5f, 0.75f, 7.0f, -3.25f, 10.0f};
  std::vector<float> output(64);
  run(kernel, {input.data(), output.data()});
  for (int k = 0; k < 8; ++k) {
    const float x = input[k];
    const float* row = &output[k * 8];
    EXPECT_NEAR(row[0], std::log(std::fabs(x)), 1e-6);
    EXPECT_EQ(row[1], std::sqrt(std::fabs(x)));
    EXPECT_EQ(row[2], std::floor(x));
    EXPECT_EQ(row[3], std::ceil(x));
    EXPECT_EQ(row[4], std::nearbyint(x)) << "round half to even of " << x;
    EXPECT_EQ(row[5], -x);
    EXPECT_NEAR(row[6], std::pow(std::fabs(x), 1.5), 1e-6 * std::pow(std::fabs(x), 1.5));
    EXPECT_EQ(row[7], x - std::floor(x / 2.0f) * 2.0f) << "floormod of " << x;
  }
  EXPECT_EQ(output[4 * 0 + 4], 2.0f); // round(2.5) is 2, not 3
}

namespace {
std::int64_t floorDivide(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(std::floor(static_cast<double>(a) / b));
}
} // namespace

TEST(CpuCodegenArithmetic, FloorDivAndFloorModRoundTowardsNegativeInfinity) {
  // Divisors from a buffer (signs vary) and the positive-constant fast path, in vector lanes
  // and in a scalar loop.
  constexpr int n = 48;
  const Buffer a = argument("A", n, DataType::Int64), b = argument("B", n, DataType::Int64);
  std::vector<Buffer> outputs;
  for (const char* name : {"div", "mod", "div4", "mod4"})
    outputs.push_back(argument(name, n, DataType::Int64));
  for (ForKind kind : {ForKind::Vectorized, ForKind::Serial}) {
    const Var i = makeVar("i");
    const Expr x = bufferLoad(a, v(i)), y = bufferLoad(b, v(i));
    const Stmt body = makeSequence({makeStore(outputs[0], v(i), floorDiv(x, y)),
                                    makeStore(outputs[1], v(i), floorMod(x, y)),
                                    makeStore(outputs[2], v(i), floorDiv(x, c(4))),
                                    makeStore(outputs[3], v(i), floorMod(x, c(4)))});
    const LoadedKernel kernel = compile({"floor_division",
                                         {a, b, outputs[0], outputs[1], outputs[2], outputs[3]},
                                         makeFor(i, n, kind, body)});
    std::vector<std::int64_t> dividends(n), divisors(n);
    std::vector<std::vector<std::int64_t>> results(4, std::vector<std::int64_t>(n));
    const std::int64_t divisorChoices[] = {-7, -3, 3, 7};
    for (int k = 0; k < n; ++k) {
      dividends[k] = k - n / 2;
      divisors[k] = divisorChoices[k % 4];
    }
    run(kernel, {dividends.data(), divisors.data(), results[0].data(), results[1].data(),
                 results[2].data(), results[3].data()});
    for (int k = 0; k < n; ++k) {
      const std::int64_t x = dividends[k], y = divisors[k];
      ASSERT_EQ(results[0][k], floorDivide(x, y)) << x << " // " << y;
      ASSERT_EQ(results[1][k], x - floorDivide(x, y) * y) << x << " % " << y;
      ASSERT_EQ(results[2][k], floorDivide(x, 4)) << x << " // 4";
      ASSERT_EQ(results[3][k], x - floorDivide(x, 4) * 4) << x << " % 4";
    }
  }
  EXPECT_EQ(floorDivide(-7, 2), -4); // the reference itself
}

TEST(CpuCodegenArithmetic, Int64AndBoolBuffersWithCasts) {
  constexpr int n = 32;
  const Buffer a = argument("A", n);
  const Buffer truncated = argument("T", n, DataType::Int64);
  const Buffer flags = argument("M", n, DataType::Bool);
  const Buffer masked = argument("F", n);
  const Var i = makeVar("i");
  const Expr x = bufferLoad(a, v(i));
  const Stmt body =
      makeSequence({makeStore(truncated, v(i), cast(DataType::Int64, x)),
                    makeStore(flags, v(i), x > floatImm(0.5)),
                    makeStore(masked, v(i),
                              cast(DataType::Float32, bufferLoad(flags, v(i))) *
                                  cast(DataType::Float32, bufferLoad(truncated, v(i)) + c(1)))});
  const LoadedKernel kernel =
      compile({"casts", {a, truncated, flags, masked}, makeFor(i, n, ForKind::Vectorized, body)});
  std::vector<float> input = randomFloats(n, -100, 100, 8);
  input[0] = std::numeric_limits<float>::quiet_NaN();
  input[1] = -1e30f; // saturates to the smallest int64
  input[2] = -2.75f; // truncates towards zero
  std::vector<std::int64_t> truncatedOut(n);
  std::vector<unsigned char> flagsOut(n, 7);
  std::vector<float> maskedOut(n);
  run(kernel, {input.data(), truncatedOut.data(), flagsOut.data(), maskedOut.data()});
  for (int k = 0; k < n; ++k) {
    const float x = input[k];
    std::int64_t expected = 0;
    if (k == 1)
      expected = std::numeric_limits<std::int64_t>::min();
    else if (!std::isnan(x))
      expected = static_cast<std::int64_t>(x);
    ASSERT_EQ(truncatedOut[k], expected) << x;
    ASSERT_EQ(flagsOut[k], x > 0.5f ? 1 : 0) << x; // one byte holding 0 or 1
    ASSERT_EQ(maskedOut[k], x > 0.5f ? static_cast<float>(expected + 1) : 0.0f) << x;
  }
  EXPECT_EQ(truncatedOut[2], -2);
}

TEST(CpuCodegenArithmetic, NarrowUnsignedAndHalfPrecisionTypes) {
  constexpr int n = 16;
  const Buffer bytes = argument("U", n, DataType::UInt8),
               signedBytes = argument("S", n, DataType::Int8);
  const Buffer halves = argument("H", n, DataType::Float16);
  const Buffer large = argument("L", n, DataType::Bool),
               widened = argument("W", 2 * n, DataType::Int32);
  const Buffer halfOut = argument("HO", n, DataType::Float16), floatOut = argument("FO", n);
  const Var i = makeVar("i");
  const Expr h = bufferLoad(halves, v(i));
  const Stmt body = makeSequence(
      {makeStore(large, v(i), bufferLoad(bytes, v(i)) > intImm(100, DataType::UInt8)),
       makeStore(widened, v(i), cast(DataType::Int32, bufferLoad(bytes, v(i)))),
       makeStore(widened, v(i) + c(n), cast(DataType::Int32, bufferLoad(signedBytes, v(i)))),
       makeStore(floatOut, v(i), cast(DataType::Float32, h) * floatImm(3.0)),
       makeStore(halfOut, v(i), h + h)});
  // Vectorized, and the same body in a scalar loop.
  for (ForKind kind : {ForKind::Vectorized, ForKind::Serial}) {
    const LoadedKernel kernel =
        compile({"narrow_types",
                 {bytes, signedBytes, halves, large, widened, halfOut, floatOut},
                 makeFor(i, n, kind, body)});
    std::vector<std::uint8_t> u(n);
    std::vector<std::int8_t> s(n);
    // IEEE half bit patterns: 1.0, -2.0, 0.5, 65504 (largest), 2^-24 (smallest subnormal).
    const std::uint16_t halfBits[] = {0x3C00, 0xC000, 0x3800, 0x7BFF, 0x0001};
    const double halfValues[] = {1.0, -2.0, 0.5, 65504.0, 0x1p-24};
    std::vector<std::uint16_t> hIn(n);
    for (int k = 0; k < n; ++k) {
      u[k] = static_cast<std::uint8_t>(k * 17);
      s[k] = static_cast<std::int8_t>(k * 17);
      hIn[k] = halfBits[k % 5];
    }
    std::vector<std::uint8_t> flags(n);
    std::vector<std::int32_t> wide(2 * n);
    std::vector<std::uint16_t> hOut(n);
    std::vector<float> fOut(n);
    run(kernel,
        {u.data(), s.data(), hIn.data(), flags.data(), wide.data(), hOut.data(), fOut.data()});
    const std::uint16_t doubledBits[] = {0x4000, 0xC400, 0x3C00, 0x7C00 /* overflows to inf */,
                                         0x0002};
    for (int k = 0; k < n; ++k) {
      ASSERT_EQ(flags[k], u[k] > 100 ? 1 : 0) << int(u[k]); // unsigned: 204 > 100
      ASSERT_EQ(wide[k], int(u[k]));                        // zero-extended
      ASSERT_EQ(wide[n + k], int(s[k]));                    // sign-extended
      ASSERT_EQ(fOut[k], static_cast<float>(halfValues[k % 5] * 3.0)) << k;
      ASSERT_EQ(hOut[k], doubledBits[k % 5]) << k;
    }
  }
}

TEST(CpuCodegenArithmetic, IntegerFunctionsComputeInFloat64AndTruncate) {
  // As te/Interpreter.h: the value in double, then saturated to int64 and wrapped to the dtype.
  const Buffer base = argument("B", 6, DataType::Int64),
               exponent = argument("E", 6, DataType::Int64);
  const Buffer power = argument("P", 6, DataType::Int64),
               power32 = argument("Q", 6, DataType::Int32);
  const Buffer exp32 = argument("X", 6, DataType::Int32);
  const Var i = makeVar("i");
  const Expr b = bufferLoad(base, v(i)), e = bufferLoad(exponent, v(i));
  const Expr b32 = cast(DataType::Int32, b);
  const Stmt body = makeSequence(
      {makeStore(power, v(i), call(CallFunction::Pow, {b, e})),
       makeStore(power32, v(i), call(CallFunction::Pow, {b32, cast(DataType::Int32, e)})),
       makeStore(exp32, v(i), call(CallFunction::Exp, {b32}))});
  for (ForKind kind : {ForKind::Vectorized, ForKind::Serial}) {
    const LoadedKernel kernel = compile(
        {"integer_functions", {base, exponent, power, power32, exp32}, makeFor(i, 6, kind, body)});
    std::vector<std::int64_t> bases{3, -2, 2, 10, 2, 0}, exponents{4, 3, -1, 20, 31, 0};
    std::vector<std::int64_t> powers(6);
    std::vector<std::int32_t> powers32(6), exps(6);
    run(kernel, {bases.data(), exponents.data(), powers.data(), powers32.data(), exps.data()});
    const std::int64_t expected[] = {81,
                                     -8,
                                     0 /* 0.5 truncated */,
                                     std::numeric_limits<std::int64_t>::max() /* 1e20 */,
                                     std::int64_t{1} << 31,
                                     1};
    // 2^31 does not fit int32: int64 2147483648 wraps to -2147483648.
    const std::int32_t expected32[] = {
        81, -8, 0, -1 /* int64 max wraps to -1 */, std::numeric_limits<std::int32_t>::min(), 1};
    const std::int32_t expectedExp[] = {20 /* e^3 = 20.09 */, 0 /* e^-2 */, 7, 22026, 7, 1};
    for (int k = 0; k < 6; ++k) {
      EXPECT_EQ(powers[k], expected[k]) << k;
      EXPECT_EQ(powers32[k], expected32[k]) << k;
      EXPECT_EQ(exps[k], expectedExp[k]) << k;
    }
  }
}
