// What the code generator emits for the copies of an unrolled body (issue 14): index sums with
// the unrolled constants folded out, operations and loads numbered per block, a store standing
// for a later load of its address, and floor division of a loop index as an unsigned division.
// Each kernel is also run and checked, since the numbering must never reuse a stale value.
#include "CpuCodegenTestSupport.h"
#include "codegen/llvm/LoopAnalysis.h"

#include <gtest/gtest.h>
#include <string>

using namespace clustune;
using namespace clustune::te;
using namespace clustune::codegen::testing;
using codegen::LoadedKernel;

namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t found = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++found;
  return found;
}

// C[i, u, j] = A[i, j] * W[u] for 8 rows, u unrolled 4 times, j in 16 vector lanes.
LoweredFunction scaledRows() {
  const Buffer a = argument("A", 8 * 16), w = argument("W", 4), out = argument("C", 8 * 4 * 16);
  const Var i = makeVar("i"), u = makeVar("u"), j = makeVar("j");
  const Stmt store = makeStore(out, (v(i) * c(4) + v(u)) * c(16) + v(j),
                               bufferLoad(a, v(i) * c(16) + v(j)) * bufferLoad(w, v(u)));
  return {"scaled_rows",
          {a, w, out},
          makeFor(i, 8, ForKind::Serial,
                  makeFor(u, 4, ForKind::Unrolled, makeFor(j, 16, ForKind::Vectorized, store)))};
}

} // namespace

TEST(CpuCodegenValueNumbering, UnrolledCopiesShareTheirOperandLoadsAndIndexArithmetic) {
  const LoweredFunction function = scaledRows();
  const std::string ir = codegen::emitLlvmIr(function, host(), /*optimized=*/false);
  // A's row is loaded once for the four copies; W's four elements once each.
  EXPECT_EQ(count(ir, "load <16 x float>"), 1u) << ir;
  EXPECT_EQ(count(ir, "load <1 x float>"), 4u) << ir;
  // The store index is i·64 + 16·u: one product shared by the copies, then one add of the
  // copy's constant for the three copies whose constant is not zero (and the loop's own add).
  EXPECT_EQ(count(ir, "mul nsw i64 %i, 64"), 1u) << ir;
  EXPECT_EQ(count(ir, " = add "), 4u) << ir;
  EXPECT_EQ(count(ir, "add nsw i64 %i, 0"), 0u) << ir;

  const LoadedKernel kernel = compile(function);
  std::vector<float> a = randomFloats(8 * 16, -1, 1, 3), w = randomFloats(4, -1, 1, 4);
  std::vector<float> out(8 * 4 * 16);
  run(kernel, {a.data(), w.data(), out.data()});
  for (int i = 0; i < 8; ++i)
    for (int u = 0; u < 4; ++u)
      for (int j = 0; j < 16; ++j)
        ASSERT_EQ(out[(i * 4 + u) * 16 + j], a[i * 16 + j] * w[u]) << i << ", " << u << ", " << j;
}

TEST(CpuCodegenValueNumbering, AStoreStandsForALaterLoadAndForgetsOnlyItsBuffer) {
  // Twice, unrolled: B[0] = B[0] + A[0]; A[0] = A[0] * 2. The second copy must read the A[0]
  // that the first stored, and B's store must not make A's value stale or vice versa.
  const Buffer a = argument("A", 1), b = argument("B", 1);
  const Var u = makeVar("u");
  const Stmt body = makeSequence({makeStore(b, c(0), bufferLoad(b, c(0)) + bufferLoad(a, c(0))),
                                  makeStore(a, c(0), bufferLoad(a, c(0)) * floatImm(2.0))});
  const LoweredFunction function{
      "store_forwarding", {a, b}, makeFor(u, 2, ForKind::Unrolled, body)};
  const std::string ir = codegen::emitLlvmIr(function, host(), /*optimized=*/false);
  // One load of each buffer: every later read is the value stored or loaded before.
  EXPECT_EQ(count(ir, "load float, ptr"), 2u) << ir;

  const LoadedKernel kernel = compile(function);
  float aValue = 1.5f, bValue = 0.25f;
  run(kernel, {&aValue, &bValue});
  EXPECT_EQ(aValue, 6.0f);
  EXPECT_EQ(bValue, 0.25f + 1.5f + 3.0f);
}

TEST(CpuCodegenValueNumbering, AStoreAtAnotherIndexOfTheSameBufferForgetsItsLoads) {
  // Unrolled over u: A[1] = A[0] + 1; A[0] = A[1] * 3. Both reads follow a store to A.
  const Buffer a = argument("A", 2);
  const Var u = makeVar("u");
  const Stmt body = makeSequence({makeStore(a, c(1), bufferLoad(a, c(0)) + floatImm(1.0)),
                                  makeStore(a, c(0), bufferLoad(a, c(1)) * floatImm(3.0))});
  const LoweredFunction function{"same_buffer", {a}, makeFor(u, 3, ForKind::Unrolled, body)};
  const LoadedKernel kernel = compile(function);
  std::vector<float> values{0.5f, -7.0f};
  run(kernel, {values.data()});
  float expected0 = 0.5f, expected1 = -7.0f;
  for (int copy = 0; copy < 3; ++copy) {
    expected1 = expected0 + 1.0f;
    expected0 = expected1 * 3.0f;
  }
  EXPECT_EQ(values[0], expected0);
  EXPECT_EQ(values[1], expected1);
}

TEST(CpuCodegenValueNumbering, AParallelLoopForgetsWhatWasLoadedBeforeIt) {
  // out[0] = A[0]; parallel j: A[j] = j; out[1] = A[0] + 10, all in one block of the kernel.
  const Buffer a = argument("A", 4), out = argument("C", 2);
  const Var j = makeVar("j");
  const Stmt body = makeSequence(
      {makeStore(out, c(0), bufferLoad(a, c(0))),
       makeFor(j, 4, ForKind::Parallel, makeStore(a, v(j), cast(DataType::Float32, v(j)))),
       makeStore(out, c(1), bufferLoad(a, c(0)) + floatImm(10.0))});
  const LoweredFunction function{"after_parallel", {a, out}, body};
  const LoadedKernel kernel = compile(function);
  std::vector<float> values{5.0f, 5.0f, 5.0f, 5.0f}, outputs(2);
  run(kernel, {values.data(), outputs.data()});
  EXPECT_EQ(outputs[0], 5.0f);
  EXPECT_EQ(outputs[1], 10.0f);
}

TEST(CpuCodegenValueNumbering, FloorDivisionOfALoopIndexIsUnsigned) {
  // C[i] = floordiv(i, 7) + floormod(i - 20, 7): the first needs no rounding correction, the
  // second's dividend may be negative.
  const Buffer out = argument("C", 64, DataType::Int64);
  const Var i = makeVar("i");
  const Expr value = floorDiv(v(i), c(7)) + floorMod(v(i) - c(20), c(7));
  const LoweredFunction function{
      "floor_division", {out}, makeFor(i, 64, ForKind::Serial, makeStore(out, v(i), value))};
  const std::string ir = codegen::emitLlvmIr(function, host(), /*optimized=*/false);
  EXPECT_EQ(count(ir, "udiv i64"), 1u) << ir;
  EXPECT_EQ(count(ir, "srem i64"), 1u) << ir;

  const LoadedKernel kernel = compile(function);
  std::vector<std::int64_t> outputs(64);
  run(kernel, {outputs.data()});
  for (std::int64_t k = 0; k < 64; ++k)
    ASSERT_EQ(outputs[k], k / 7 + (((k - 20) % 7) + 7) % 7) << k;
}

TEST(CpuLoopAnalysis, NonNegativeIntegerExpressions) {
  const Var i = makeVar("i"), j = makeVar("j");
  using codegen::isNonNegative;
  EXPECT_TRUE(isNonNegative(v(i) * c(3) + v(j)));
  EXPECT_TRUE(isNonNegative(floorDiv(v(i) * c(16) + v(j), c(7))));
  EXPECT_TRUE(isNonNegative(floorMod(v(i), c(7))));
  EXPECT_FALSE(isNonNegative(v(i) - c(1)));
  EXPECT_FALSE(isNonNegative(v(i) * c(-1)));
  EXPECT_FALSE(isNonNegative(floorDiv(v(i), c(-2))));
  EXPECT_FALSE(isNonNegative(floorDiv(v(i), v(j)))); // the divisor may be zero or negative
  const Buffer floats = argument("F", 4);
  EXPECT_FALSE(isNonNegative(cast(DataType::Int64, bufferLoad(floats, v(i)))));
}
