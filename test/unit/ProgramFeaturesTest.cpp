// Program features (lib/features/ProgramFeatures.h) of hand-built loop nests whose values are
// computed by hand in the comments: a vectorized vector add, a matmul with a reduction loop,
// unrolled and parallel loops, a local accumulator, the arithmetic-intensity curve, and a real
// convolution task lowered with its default schedule (finite, one vector per store,
// deterministic), and structural invariants over the lib/schedule test workloads.
#include "features/ProgramFeatures.h"

#include "ScheduleTestSupport.h"
#include "schedule/DefaultSchedule.h"
#include "schedule/Lower.h"
#include "schedule/State.h"
#include "te/LowerTask.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace clustune;
using namespace clustune::features;
namespace ix = clustune::features::index;
using te::ForKind;

namespace {

te::Expr at(const te::Var& var) {
  return te::varExpr(var);
}

te::Buffer floats(const std::string& name, std::int64_t elements,
                  te::BufferScope scope = te::BufferScope::Argument) {
  return te::makeBuffer(name, te::DataType::Float32, elements, scope);
}

// Checks every position of an annotation group (count, product, length, one-hot position).
void expectAnnotation(const StoreFeatures& f, std::size_t group, double count, double product,
                      double length, LoopPosition position) {
  EXPECT_FLOAT_EQ(f.values[group + ix::kAnnotationCount], slog(count));
  EXPECT_FLOAT_EQ(f.values[group + ix::kAnnotationProduct], slog(product));
  EXPECT_FLOAT_EQ(f.values[group + ix::kAnnotationLength], slog(length));
  for (std::size_t p = 0; p < kLoopPositionCount; ++p)
    EXPECT_EQ(f.values[group + ix::kAnnotationPosition + p],
              p == static_cast<std::size_t>(position) ? 1.0f : 0.0f)
        << "position " << p;
}

// C[i] = A[i] + B[i] over a vectorized loop of 64.
TEST(ProgramFeatures, VectorAdd) {
  const te::Buffer a = floats("A", 64), b = floats("B", 64), c = floats("C", 64);
  const te::Var i = te::makeVar("i");
  const te::Stmt body =
      te::makeFor(i, 64, ForKind::Vectorized,
                  te::makeStore(c, at(i), te::bufferLoad(a, at(i)) + te::bufferLoad(b, at(i))));
  const auto features = extractProgramFeatures({"add", {a, b, c}, body});
  ASSERT_EQ(features.size(), 1u);
  const StoreFeatures& f = features[0];

  EXPECT_FLOAT_EQ(f.values[ix::kFloatAddSub], slog(64)); // one add, 64 times
  EXPECT_FLOAT_EQ(f.values[ix::kFloatAddSub], std::log2(65.0f));
  for (std::size_t op : {ix::kFloatMad, ix::kFloatMul, ix::kIntAddSub, ix::kIntMad, ix::kSelectOp})
    EXPECT_EQ(f.values[op], 0.0f) << op;
  expectAnnotation(f, ix::kVectorize, 1, 64, 64, LoopPosition::InnerSpatial);
  expectAnnotation(f, ix::kUnroll, 0, 0, 0, LoopPosition::None);
  expectAnnotation(f, ix::kParallel, 0, 0, 0, LoopPosition::None);
  EXPECT_EQ(f.values[ix::kIsGpu], 0.0f);

  // Equal reuse distance (none) and unique bytes: first-access order, C (written), A, B.
  const std::size_t accessType[] = {ix::kAccessWrite, ix::kAccessRead, ix::kAccessRead};
  for (std::size_t slot = 0; slot < 3; ++slot) {
    const auto at = [slot](std::size_t offset) { return ix::buffer(slot, offset); };
    for (std::size_t type : {ix::kAccessRead, ix::kAccessWrite, ix::kAccessReadWrite})
      EXPECT_EQ(f.values[at(type)], type == accessType[slot] ? 1.0f : 0.0f) << slot;
    EXPECT_FLOAT_EQ(f.values[at(ix::kBytes)], slog(256));
    EXPECT_FLOAT_EQ(f.values[at(ix::kUniqueBytes)], slog(256));
    EXPECT_FLOAT_EQ(f.values[at(ix::kLines)], slog(4)); // 256 contiguous bytes: 4 lines
    EXPECT_FLOAT_EQ(f.values[at(ix::kUniqueLines)], slog(4));
    EXPECT_EQ(f.values[at(ix::kReuseNone)], 1.0f);
    EXPECT_EQ(f.values[at(ix::kReuseLoopMultipleRead)], 0.0f);
    EXPECT_EQ(f.values[at(ix::kReuseCount)], 0.0f);
    EXPECT_FLOAT_EQ(f.values[at(ix::kBytesPerReuse)], slog(2 * 256)); // Ansor's no-reuse 2x
    EXPECT_FLOAT_EQ(f.values[at(ix::kStride)], slog(1));
  }
  for (std::size_t slot = 3; slot < ix::kBufferSlots; ++slot)
    for (std::size_t offset = 0; offset < ix::kBufferFeatureCount; ++offset)
      EXPECT_EQ(f.values[ix::buffer(slot, offset)], 0.0f);
  // 1 FLOP per 12 bytes at every loop level.
  for (std::size_t sample = 0; sample < ix::kArithmeticIntensitySamples; ++sample)
    EXPECT_FLOAT_EQ(f.values[ix::kArithmeticIntensityCurve + sample], slog(1.0 / 12));
  EXPECT_EQ(f.values[ix::kAllocationSize], 0.0f); // C is an argument
  EXPECT_FLOAT_EQ(f.values[ix::kOuterProduct], slog(64));
  EXPECT_FLOAT_EQ(f.values[ix::kNumLoops], slog(1));
  EXPECT_EQ(f.values[ix::kAutoUnrollMaxStep], 0.0f);
}

TEST(ProgramFeatures, OperationKindsAndGathers) {
  // for i in 0..16: Out[i] = select(X[i] > 0, exp(X[i]), abs(X[i]) / 3) + Table[Idx[i]]
  const te::Buffer x = floats("X", 16), table = floats("Table", 100), out = floats("Out", 16);
  const te::Buffer idx = te::makeBuffer("Idx", te::DataType::Int64, 16, te::BufferScope::Argument);
  const te::Var i = te::makeVar("i");
  const te::Expr xi = te::bufferLoad(x, at(i));
  const te::Expr value = te::select(xi > te::floatImm(0.0), te::call(te::CallFunction::Exp, {xi}),
                                    te::call(te::CallFunction::Abs, {xi}) / te::floatImm(3.0)) +
                         te::bufferLoad(table, te::bufferLoad(idx, at(i)));
  const te::Stmt body = te::makeFor(i, 16, ForKind::Serial, te::makeStore(out, at(i), value));
  const StoreFeatures f = extractProgramFeatures({"g", {x, idx, table, out}, body}).at(0);
  EXPECT_FLOAT_EQ(f.values[ix::kFloatCmp], slog(16));
  EXPECT_FLOAT_EQ(f.values[ix::kFloatMathFunc], slog(16));  // exp
  EXPECT_FLOAT_EQ(f.values[ix::kFloatOtherFunc], slog(16)); // abs
  EXPECT_FLOAT_EQ(f.values[ix::kFloatDivMod], slog(16));
  EXPECT_FLOAT_EQ(f.values[ix::kFloatAddSub], slog(16));
  EXPECT_FLOAT_EQ(f.values[ix::kSelectOp], slog(16));
  EXPECT_EQ(f.values[ix::kIntCmp], 0.0f);
  // X, read three times, is reused serially within one execution at a distance of every
  // buffer's bytes there: 4 (X) + 8 (Idx) + 400 (Table: a gather may touch all of it) + 4 (Out).
  const auto slot = [&](std::size_t s, std::size_t o) { return f.values[ix::buffer(s, o)]; };
  EXPECT_EQ(slot(0, ix::kReuseSerialMultipleReadWrite), 1.0f);
  EXPECT_FLOAT_EQ(slot(0, ix::kReuseCount), slog(2));
  EXPECT_FLOAT_EQ(slot(0, ix::kReuseDistanceBytes), slog(416));
  EXPECT_FLOAT_EQ(slot(0, ix::kReuseDistanceIterations), slog(1));
  EXPECT_FLOAT_EQ(slot(0, ix::kBytes), slog(64)); // once per execution
  EXPECT_FLOAT_EQ(slot(0, ix::kUniqueBytes), slog(64));
  // Then, without reuse, by unique bytes: Table (400), Idx (16 x 8 bytes), Out (64).
  EXPECT_FLOAT_EQ(slot(1, ix::kUniqueBytes), slog(400));
  EXPECT_EQ(slot(1, ix::kStride), 0.0f); // unknown: a gather
  EXPECT_EQ(slot(1, ix::kReuseNone), 1.0f);
  EXPECT_FLOAT_EQ(slot(1, ix::kBytes), slog(64));
  EXPECT_FLOAT_EQ(slot(2, ix::kUniqueBytes), slog(128));
  EXPECT_EQ(slot(3, ix::kAccessWrite), 1.0f);
  EXPECT_FLOAT_EQ(slot(3, ix::kUniqueBytes), slog(64));
}

constexpr std::int64_t M = 4, N = 8, K = 16;

// for i, j: C[i*N + j] = 0; for k: C[i*N + j] = C[i*N + j] + A[i*K + k] * B[k*N + j].
te::LoweredFunction matmulNest(ForKind kKind = ForKind::Serial, ForKind jKind = ForKind::Serial) {
  const te::Buffer a = floats("A", M * K), b = floats("B", K * N), c = floats("C", M * N);
  const te::Var i = te::makeVar("i"), j = te::makeVar("j"), k = te::makeVar("k");
  const te::Expr cIndex = at(i) * te::intImm(N) + at(j);
  const te::Expr update =
      te::bufferLoad(c, cIndex) + te::bufferLoad(a, at(i) * te::intImm(K) + at(k)) *
                                      te::bufferLoad(b, at(k) * te::intImm(N) + at(j));
  const te::Stmt nest = te::makeFor(
      i, M, ForKind::Serial,
      te::makeFor(j, N, jKind,
                  te::makeSequence({te::makeStore(c, cIndex, te::floatImm(0.0)),
                                    te::makeFor(k, K, kKind, te::makeStore(c, cIndex, update))})));
  return {"matmul", {a, b, c}, nest};
}

TEST(ProgramFeatures, MatmulCountsMultiplyAddsAndFindsReuse) {
  const auto features = extractProgramFeatures(matmulNest());
  ASSERT_EQ(features.size(), 2u);
  const StoreFeatures& init = features[0];
  EXPECT_EQ(init.values[ix::kFloatMad], 0.0f);
  EXPECT_FLOAT_EQ(init.values[ix::kOuterProduct], slog(M * N));
  EXPECT_FLOAT_EQ(init.values[ix::kNumLoops], slog(2));

  const StoreFeatures& f = features[1];
  EXPECT_FLOAT_EQ(f.values[ix::kFloatMad], slog(M * N * K));
  EXPECT_EQ(f.values[ix::kFloatAddSub], 0.0f); // the add and multiply are one mad
  EXPECT_EQ(f.values[ix::kFloatMul], 0.0f);
  // Three loaded indices of the form x*c + y: integer multiply-adds.
  EXPECT_FLOAT_EQ(f.values[ix::kIntMad], slog(3 * M * N * K));
  EXPECT_FLOAT_EQ(f.values[ix::kNumLoops], slog(3));

  // Sorted by reuse distance in bytes, largest first:
  //   B reused along i, after one (j, k) sweep: 4N (C) + 4K (A) + 4KN (B) = 608 bytes;
  //   A reused along j, after one k sweep: 4 (C) + 4K (A) + 4K (B) = 132 bytes;
  //   C reused along k, after one iteration: 4 + 4 + 4 = 12 bytes.
  const auto slot = [&](std::size_t s, std::size_t offset) {
    return f.values[ix::buffer(s, offset)];
  };
  EXPECT_FLOAT_EQ(slot(0, ix::kReuseDistanceBytes), slog(4 * N + 4 * K + 4 * K * N));
  EXPECT_FLOAT_EQ(slot(0, ix::kReuseDistanceIterations), slog(N * K));
  EXPECT_FLOAT_EQ(slot(0, ix::kReuseCount), slog(M));
  EXPECT_FLOAT_EQ(slot(0, ix::kStride), slog(N)); // k moves B by a row
  // Lines: one per 64 bytes along the innermost moving loop; a stride of N floats = 32 bytes
  // fits two accesses per line: M·N·K / 2 lines, K·N / 2 distinct ones.
  EXPECT_FLOAT_EQ(slot(0, ix::kLines), slog(M * N * K / 2));
  EXPECT_FLOAT_EQ(slot(0, ix::kUniqueLines), slog(K * N / 2));
  EXPECT_EQ(slot(0, ix::kAccessRead), 1.0f);

  EXPECT_EQ(slot(1, ix::kReuseLoopMultipleRead), 1.0f); // A along j
  EXPECT_EQ(slot(1, ix::kReuseNone), 0.0f);
  EXPECT_FLOAT_EQ(slot(1, ix::kReuseDistanceIterations), slog(K));
  EXPECT_FLOAT_EQ(slot(1, ix::kReuseDistanceBytes), slog(4 + 8 * K));
  EXPECT_FLOAT_EQ(slot(1, ix::kReuseCount), slog(N));
  EXPECT_FLOAT_EQ(slot(1, ix::kBytes), slog(4 * M * N * K));
  EXPECT_FLOAT_EQ(slot(1, ix::kUniqueBytes), slog(4 * M * K));
  EXPECT_FLOAT_EQ(slot(1, ix::kBytesPerReuse), slog(4.0 * M * N * K / N));
  EXPECT_FLOAT_EQ(slot(1, ix::kStride), slog(1));

  EXPECT_EQ(slot(2, ix::kAccessReadWrite), 1.0f); // C is read and written
  EXPECT_EQ(slot(2, ix::kReuseLoopMultipleRead), 1.0f);
  EXPECT_FLOAT_EQ(slot(2, ix::kReuseDistanceIterations), slog(1));
  EXPECT_FLOAT_EQ(slot(2, ix::kReuseDistanceBytes), slog(12));
  EXPECT_FLOAT_EQ(slot(2, ix::kReuseCount), slog(K));
  EXPECT_FLOAT_EQ(slot(2, ix::kBytes), slog(4 * M * N * K)); // read-modify-write: once
  EXPECT_FLOAT_EQ(slot(2, ix::kUniqueBytes), slog(4 * M * N));
  EXPECT_EQ(slot(2, ix::kStride), 0.0f); // the innermost loop, k, does not move C
  // k revisits the same element: lines come from the (i, j) iterations, 16 floats per line.
  EXPECT_FLOAT_EQ(slot(2, ix::kLines), slog(M * N / 16));
  EXPECT_FLOAT_EQ(slot(1, ix::kLines), slog(M * N * K / 16));
  EXPECT_EQ(slot(3, ix::kBytes), 0.0f);
}

TEST(ProgramFeatures, ReduceLoopPositions) {
  // Annotations on the reduction loop k and on j: j is the innermost spatial loop of the
  // update, k its only reduce loop.
  const auto features = extractProgramFeatures(matmulNest(ForKind::Unrolled, ForKind::Parallel));
  const StoreFeatures& update = features[1];
  expectAnnotation(update, ix::kUnroll, 1, K, K, LoopPosition::InnerReduce);
  expectAnnotation(update, ix::kParallel, 1, N, N, LoopPosition::InnerSpatial);
  // The initialising store does not accumulate, so the loops inside it do not exist for it.
  expectAnnotation(features[0], ix::kUnroll, 0, 0, 0, LoopPosition::None);
}

TEST(ProgramFeatures, UnrolledAndParallelLoops) {
  // for i in 0..8 parallel (auto_unroll_max_step 16): for j in 0..4 unrolled:
  //   for v in 0..4 unrolled: Out[i*16 + j*4 + v] = In[i*16 + j*4 + v] * 2
  const te::Buffer in = floats("In", 128), out = floats("Out", 128);
  const te::Var i = te::makeVar("i"), j = te::makeVar("j"), v = te::makeVar("v");
  const te::Expr index = at(i) * te::intImm(16) + at(j) * te::intImm(4) + at(v);
  const te::Stmt body = te::makeFor(
      i, 8, ForKind::Parallel,
      te::makeFor(
          j, 4, ForKind::Unrolled,
          te::makeFor(v, 4, ForKind::Unrolled,
                      te::makeStore(out, index, te::bufferLoad(in, index) * te::floatImm(2.0)))),
      16);
  const auto features = extractProgramFeatures({"f", {in, out}, body});
  ASSERT_EQ(features.size(), 1u);
  const StoreFeatures& f = features[0];
  expectAnnotation(f, ix::kUnroll, 2, 16, 4, LoopPosition::InnerSpatial);
  expectAnnotation(f, ix::kParallel, 1, 8, 8, LoopPosition::OuterSpatial);
  expectAnnotation(f, ix::kVectorize, 0, 0, 0, LoopPosition::None);
  EXPECT_FLOAT_EQ(f.values[ix::kFloatMul], slog(128));
  EXPECT_FLOAT_EQ(f.values[ix::kAutoUnrollMaxStep], slog(16));
  EXPECT_FLOAT_EQ(f.values[ix::kOuterProduct], slog(128));
  EXPECT_FLOAT_EQ(f.values[ix::kNumLoops], slog(3));
}

TEST(ProgramFeatures, ThreadBindingsFillTheGpuGroupWithTheirExtents) {
  // for b in 0..32 blockIdx.x: for v in 0..2 vthread: for t in 0..64 threadIdx.x:
  //   Out[b*128 + v*64 + t] = In[b*128 + v*64 + t] + 1
  const te::Buffer in = floats("In", 4096), out = floats("Out", 4096);
  const te::Var b = te::makeVar("b"), v = te::makeVar("v"), t = te::makeVar("t");
  const te::Expr index = at(b) * te::intImm(128) + at(v) * te::intImm(64) + at(t);
  const te::Stmt body = te::makeFor(
      b, 32, ForKind::BlockIdxX,
      te::makeFor(
          v, 2, ForKind::VThread,
          te::makeFor(t, 64, ForKind::ThreadIdxX,
                      te::makeStore(out, index, te::bufferLoad(in, index) + te::floatImm(1)))));
  const StoreFeatures gpu = extractProgramFeatures({"f", {in, out}, body}).at(0);
  EXPECT_EQ(gpu.values[ix::kIsGpu], 1.0f);
  EXPECT_FLOAT_EQ(gpu.values[ix::kBlockIdxX], slog(32));
  EXPECT_FLOAT_EQ(gpu.values[ix::kVthread], slog(2));
  EXPECT_FLOAT_EQ(gpu.values[ix::kThreadIdxX], slog(64));
  for (std::size_t unbound : {ix::kBlockIdxY, ix::kBlockIdxZ, ix::kThreadIdxY, ix::kThreadIdxZ})
    EXPECT_EQ(gpu.values[unbound], 0.0f) << unbound;
  expectAnnotation(gpu, ix::kParallel, 0, 0, 0, LoopPosition::None);

  // The same nest with serial loops is a CPU program: the whole group is 0.
  const te::Stmt serial = te::makeFor(
      b, 32, ForKind::Serial,
      te::makeFor(
          v, 2, ForKind::Serial,
          te::makeFor(t, 64, ForKind::Serial,
                      te::makeStore(out, index, te::bufferLoad(in, index) + te::floatImm(1)))));
  const StoreFeatures cpu = extractProgramFeatures({"f", {in, out}, serial}).at(0);
  for (std::size_t feature = ix::kIsGpu; feature <= ix::kVthread; ++feature)
    EXPECT_EQ(cpu.values[feature], 0.0f) << feature;
}

TEST(ProgramFeatures, FusedLoopIsMixed) {
  // One loop over a 4x8 tensor stored transposed: Out[(f % 8) * 4 + f / 8] = In[f].
  const te::Buffer in = floats("In", 32), out = floats("Out", 32);
  const te::Var f = te::makeVar("f");
  const te::Expr transposed =
      te::floorMod(at(f), te::intImm(8)) * te::intImm(4) + te::floorDiv(at(f), te::intImm(8));
  const te::Stmt body = te::makeFor(f, 32, ForKind::Vectorized,
                                    te::makeStore(out, transposed, te::bufferLoad(in, at(f))));
  const StoreFeatures features = extractProgramFeatures({"t", {in, out}, body}).at(0);
  expectAnnotation(features, ix::kVectorize, 1, 32, 32, LoopPosition::Mixed);
  // Differencing f = 0 -> 1 moves Out by 4: the stored buffer's stride.
  EXPECT_FLOAT_EQ(features.values[ix::buffer(0, ix::kStride)], slog(4));
  EXPECT_FLOAT_EQ(features.values[ix::kIntDivMod], 0.0f); // store indices are not counted
}

TEST(ProgramFeatures, LocalAccumulator) {
  // for i in 0..8 parallel: allocate acc[1] { acc[0] = 0; for k in 0..16:
  //   acc[0] = acc[0] + X[i*16 + k]; Out[i] = acc[0] }
  const te::Buffer x = floats("X", 128), out = floats("Out", 8);
  const te::Buffer acc = floats("acc", 1, te::BufferScope::Local);
  const te::Var i = te::makeVar("i"), k = te::makeVar("k");
  const te::Expr zero = te::intImm(0);
  const te::Stmt body = te::makeFor(
      i, 8, ForKind::Parallel,
      te::makeAllocate(
          acc,
          te::makeSequence(
              {te::makeStore(acc, zero, te::floatImm(0.0)),
               te::makeFor(k, 16, ForKind::Serial,
                           te::makeStore(acc, zero,
                                         te::bufferLoad(acc, zero) +
                                             te::bufferLoad(x, at(i) * te::intImm(16) + at(k)))),
               te::makeStore(out, at(i), te::bufferLoad(acc, zero))})));
  const auto features = extractProgramFeatures({"sum", {x, out}, body});
  ASSERT_EQ(features.size(), 3u);
  const StoreFeatures &init = features[0], &update = features[1], &result = features[2];
  for (const StoreFeatures* f : {&init, &update}) {
    EXPECT_FLOAT_EQ(f->values[ix::kAllocationSize], slog(4));
    EXPECT_FLOAT_EQ(f->values[ix::kAllocationProduct], slog(8));
    EXPECT_FLOAT_EQ(f->values[ix::kAllocationOuterProduct], slog(8));
  }
  EXPECT_FLOAT_EQ(init.values[ix::kAllocationInnerProduct], slog(1));
  EXPECT_FLOAT_EQ(update.values[ix::kAllocationInnerProduct], slog(16));
  EXPECT_EQ(result.values[ix::kAllocationSize], 0.0f); // Out is an argument
  EXPECT_FLOAT_EQ(update.values[ix::kFloatAddSub], slog(128));
  // i is outside the accumulator's allocation: the consumer's loop, outer spatial.
  expectAnnotation(update, ix::kParallel, 1, 8, 8, LoopPosition::OuterSpatial);

  // X (512 bytes, reused nowhere) sorts after acc: acc is reused along k after 4 + 4 bytes.
  const auto slot = [&](std::size_t s, std::size_t o) { return update.values[ix::buffer(s, o)]; };
  EXPECT_EQ(slot(0, ix::kAccessReadWrite), 1.0f);
  EXPECT_EQ(slot(0, ix::kReuseLoopMultipleRead), 1.0f);
  EXPECT_FLOAT_EQ(slot(0, ix::kReuseCount), slog(16));
  EXPECT_FLOAT_EQ(slot(0, ix::kReuseDistanceBytes), slog(8));
  EXPECT_EQ(slot(0, ix::kStride), 0.0f); // no loop moves acc[0]
  EXPECT_FLOAT_EQ(slot(0, ix::kUniqueBytes), slog(4));
  EXPECT_FLOAT_EQ(slot(0, ix::kUniqueLines), slog(1));
  EXPECT_EQ(slot(1, ix::kReuseNone), 1.0f);
  EXPECT_FLOAT_EQ(slot(1, ix::kUniqueBytes), slog(512));
  EXPECT_FLOAT_EQ(slot(1, ix::kStride), slog(1));
}

TEST(ProgramFeatures, ArithmeticIntensityOfMatmulNeverDecreases) {
  const StoreFeatures update = extractProgramFeatures(matmulNest()).at(1);
  // Innermost point: 2K FLOPs over 4 + 4K + 4K bytes; outermost: 2MNK over 4(MN + MK + KN).
  const double innermost = 2.0 * K / (4 + 8 * K);
  const double outermost = 2.0 * M * N * K / (4.0 * (M * N + M * K + K * N));
  EXPECT_GT(outermost, innermost);
  for (std::size_t sample = 1; sample < ix::kArithmeticIntensitySamples; ++sample)
    EXPECT_GE(update.values[ix::kArithmeticIntensityCurve + sample],
              update.values[ix::kArithmeticIntensityCurve + sample - 1]);
  EXPECT_FLOAT_EQ(update.values[ix::kArithmeticIntensityCurve + 9], slog(outermost));
  EXPECT_GT(update.values[ix::kArithmeticIntensityCurve], slog(innermost));
  // The initialising store computes nothing: its curve is zero.
  EXPECT_EQ(extractProgramFeatures(matmulNest()).at(0).values[ix::kArithmeticIntensityCurve], 0.0f);
}

// Invariants every vector must satisfy: finite values, exactly one flag per one-hot group in
// use, a never-decreasing arithmetic-intensity curve.
void expectWellFormed(const te::LoweredFunction& function) {
  const auto features = extractProgramFeatures(function);
  ASSERT_EQ(features.size(), clustune::schedule::testing::countStores(function.body))
      << te::toString(function);
  const auto sum = [](const StoreFeatures& f, std::size_t first, std::size_t count) {
    float total = 0;
    for (std::size_t value = first; value < first + count; ++value)
      total += f.values[value];
    return total;
  };
  for (const StoreFeatures& f : features) {
    for (float value : f.values)
      EXPECT_TRUE(std::isfinite(value));
    for (std::size_t group : {ix::kVectorize, ix::kUnroll, ix::kParallel})
      EXPECT_EQ(sum(f, group + ix::kAnnotationPosition, kLoopPositionCount), 1.0f);
    for (std::size_t slot = 0; slot < ix::kBufferSlots; ++slot) {
      const float used = f.values[ix::buffer(slot, ix::kBytes)] > 0 ? 1.0f : 0.0f;
      EXPECT_EQ(sum(f, ix::buffer(slot, ix::kAccessRead), 3), used);
      EXPECT_EQ(sum(f, ix::buffer(slot, ix::kReuseLoopMultipleRead), 3), used);
    }
    EXPECT_GT(f.values[ix::buffer(0, ix::kBytes)], 0.0f); // the stored buffer at least
    for (std::size_t sample = 1; sample < ix::kArithmeticIntensitySamples; ++sample)
      EXPECT_GE(f.values[ix::kArithmeticIntensityCurve + sample],
                f.values[ix::kArithmeticIntensityCurve + sample - 1]);
  }
}

TEST(ProgramFeatures, ScheduleTestWorkloadsGiveWellFormedVectors) {
  namespace st = clustune::schedule::testing;
  for (const st::TestWorkload& test :
       {st::matmul(8, 12, 5), st::paddedConvolution(3, 4, 6, 7), st::softmax(4, 9),
        st::stencilChain(10), st::totalSum(3, 5), st::elementwiseChain(4, 6)}) {
    SCOPED_TRACE(test.workload.key);
    expectWellFormed(schedule::lower(test.workload, schedule::initialState(test.workload), "f"));
    const auto steps = schedule::defaultSchedule(test.workload, {.cores = 2, .vectorLanes = 8});
    expectWellFormed(schedule::lower(test.workload, schedule::replay(test.workload, steps), "f"));
  }
}

TEST(ProgramFeatures, LoweredConvolutionTaskIsFiniteAndDeterministic) {
  // Conv 1x8x10x10 with 16 3x3 filters, padding 1, followed by nothing: one task.
  graph::Task task;
  task.inputs = {{.shape = {1, 8, 10, 10}}, {.shape = {16, 8, 3, 3}}};
  graph::TaskNode conv;
  conv.op = "Conv";
  conv.attributes = {{"kernel_shape", std::vector<std::int64_t>{3, 3}},
                     {"strides", std::vector<std::int64_t>{1, 1}},
                     {"dilations", std::vector<std::int64_t>{1, 1}},
                     {"pads", std::vector<std::int64_t>{1, 1, 1, 1}},
                     {"group", std::int64_t{1}}};
  conv.inputs = {graph::TaskValueRef::input(0), graph::TaskValueRef::input(1)};
  conv.outputShapes = {{1, 16, 10, 10}};
  conv.outputTypes = {graph::DataType::Float32};
  task.nodes = {conv};
  task.outputs = {graph::TaskValueRef::node(0, 0)};

  const te::Workload workload = te::lowerTask(task);
  const auto steps = schedule::defaultSchedule(workload, {.cores = 2, .vectorLanes = 16});
  const te::LoweredFunction function =
      schedule::lower(workload, schedule::replay(workload, steps), "conv");
  const auto features = extractProgramFeatures(function);
  ASSERT_EQ(features.size(), clustune::schedule::testing::countStores(function.body))
      << te::toString(function);
  ASSERT_GE(features.size(), 2u);
  double totalMads = 0;
  for (const StoreFeatures& store : features) {
    for (float value : store.values)
      EXPECT_TRUE(std::isfinite(value));
    totalMads += std::exp2(store.values[ix::kFloatMad]) - 1;
  }
  // 16·10·10 outputs × 8·3·3 multiply-adds: padding may be a select, but the mads are there.
  EXPECT_NEAR(totalMads, 16 * 100 * 72, 16 * 100 * 72 * 1e-5) << te::toString(function);
  const auto again = extractProgramFeatures(function);
  ASSERT_EQ(again.size(), features.size());
  for (std::size_t store = 0; store < features.size(); ++store)
    EXPECT_EQ(again[store].values, features[store].values);
}

} // namespace
