// The x86 code generator end to end: hand-built loop nests (parallel, vectorized, unrolled,
// guarded, with local buffers) are compiled for the host CPU, loaded with the JIT, run on real
// data and compared with values computed here in plain C++.
#include "CpuCodegenTestSupport.h"
#include "support/Error.h"

#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>

using namespace clustune;
using namespace clustune::te;
using namespace clustune::codegen::testing;
using codegen::CpuTarget;
using codegen::LoadedKernel;
using graph::DataType;

namespace {

// C[i] = A[i] + B[i] over 1024 elements: 64 parallel chunks of one 16-lane vector each.
LoweredFunction vectorAdd() {
  const Buffer a = argument("A", 1024), b = argument("B", 1024), out = argument("C", 1024);
  const Var outer = makeVar("io"), inner = makeVar("ii");
  const Expr index = v(outer) * c(16) + v(inner);
  return {"vector_add",
          {a, b, out},
          makeFor(outer, 64, ForKind::Parallel,
                  makeFor(inner, 16, ForKind::Vectorized,
                          makeStore(out, index, bufferLoad(a, index) + bufferLoad(b, index))))};
}

// An n x n x n matmul in a register-tiled schedule: rows split 4 (unrolled) under a parallel
// outer loop, columns split `columns` (vectorized), a local 4 x columns accumulator zeroed,
// accumulated over k and copied out.
LoweredFunction tiledMatmul(std::int64_t n, std::int64_t columns = 16) {
  const Buffer a = argument("A", n * n), b = argument("B", n * n), out = argument("C", n * n);
  const Buffer accumulator = makeBuffer("acc", DataType::Float32, 4 * columns, BufferScope::Local);
  const Var io = makeVar("io"), jo = makeVar("jo"), k = makeVar("k");
  const auto tile = [&](const std::string& suffix,
                        const std::function<Stmt(const Expr& ii, const Expr& ji)>& body) {
    const Var ii = makeVar("ii" + suffix), ji = makeVar("ji" + suffix);
    return makeFor(ii, 4, ForKind::Unrolled,
                   makeFor(ji, columns, ForKind::Vectorized, body(v(ii), v(ji))));
  };
  const auto row = [&](const Expr& ii) { return v(io) * c(4) + ii; };
  const auto column = [&](const Expr& ji) { return v(jo) * c(columns) + ji; };
  const auto accIndex = [&](const Expr& ii, const Expr& ji) { return ii * c(columns) + ji; };
  const Stmt zero = tile("z", [&](const Expr& ii, const Expr& ji) {
    return makeStore(accumulator, accIndex(ii, ji), floatImm(0.0));
  });
  const Stmt update = makeFor(k, n, ForKind::Serial, tile("u", [&](const Expr& ii, const Expr& ji) {
                                return makeStore(accumulator, accIndex(ii, ji),
                                                 bufferLoad(accumulator, accIndex(ii, ji)) +
                                                     bufferLoad(a, row(ii) * c(n) + v(k)) *
                                                         bufferLoad(b, v(k) * c(n) + column(ji)));
                              }));
  const Stmt copyOut = tile("w", [&](const Expr& ii, const Expr& ji) {
    return makeStore(out, row(ii) * c(n) + column(ji), bufferLoad(accumulator, accIndex(ii, ji)));
  });
  return {"matmul",
          {a, b, out},
          makeFor(io, n / 4, ForKind::Parallel,
                  makeAllocate(accumulator, makeFor(jo, n / columns, ForKind::Serial,
                                                    makeSequence({zero, update, copyOut}))))};
}

} // namespace

TEST(CpuCodegen, VectorAddWithParallelOuterAndVectorizedInnerLoop) {
  const LoadedKernel kernel = compile(vectorAdd());
  std::vector<float> a = randomFloats(1024, -10, 10, 1), b = randomFloats(1024, -10, 10, 2);
  std::vector<float> out(1024, std::nanf(""));
  run(kernel, {a.data(), b.data(), out.data()});
  for (int i = 0; i < 1024; ++i)
    ASSERT_EQ(out[i], a[i] + b[i]) << i;
}

TEST(CpuCodegen, AThreadBoundLoopIsRefusedWithItsBinding) {
  const te::Buffer out =
      te::makeBuffer("Out", te::DataType::Float32, 64, te::BufferScope::Argument);
  const te::Var t = te::makeVar("t");
  const te::LoweredFunction gpuKernel{
      "gpu_only",
      {out},
      te::makeFor(t, 64, te::ForKind::ThreadIdxX,
                  te::makeStore(out, te::varExpr(t), te::floatImm(1.0)))};
  try {
    codegen::emitLlvmIr(gpuKernel, host());
    FAIL() << "a threadIdx.x loop compiled for the CPU";
  } catch (const Error& error) {
    EXPECT_STREQ(
        error.what(),
        "kernel gpu_only: loop 't' is bound to threadIdx.x, which a CPU target cannot run");
  }
}

TEST(CpuCodegen, VectorizedLoopBecomesVectorInstructions) {
  const std::string ir = codegen::emitLlvmIr(vectorAdd(), host());
  EXPECT_NE(ir.find("<16 x float>"), std::string::npos) << ir;
  EXPECT_NE(ir.find("clustune_parallel_for"), std::string::npos);
  EXPECT_NE(ir.find("define void @vector_add(ptr"), std::string::npos);
}

namespace {

void expectMatmulMatchesReference(const LoweredFunction& function, int n) {
  const LoadedKernel kernel = compile(function);
  std::vector<float> a = randomFloats(n * n, -1, 1, 3), b = randomFloats(n * n, -1, 1, 4);
  std::vector<float> out(n * n, std::nanf(""));
  run(kernel, {a.data(), b.data(), out.data()});
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double exact = 0, magnitude = 0;
      for (int k = 0; k < n; ++k) {
        exact += double(a[i * n + k]) * b[k * n + j];
        magnitude += std::fabs(double(a[i * n + k]) * b[k * n + j]);
      }
      // Forward error bound of n-term float summation (FMA or not): n * 2^-24 * sum |terms|.
      ASSERT_NEAR(out[i * n + j], exact, n * 0x1p-24 * magnitude + 1e-30) << i << ", " << j;
    }
}

} // namespace

TEST(CpuCodegen, TiledMatmulWithLocalAccumulatorMatchesReference) {
  expectMatmulMatchesReference(tiledMatmul(64), 64);
}

TEST(CpuCodegen, NonPowerOfTwoVectorWiderThanARegisterRunsAsRegisterWideVectors) {
  // 28 and 56 columns (NCHW rows of resnet50): register-wide vectors and one shorter vector
  // (16 + 12, or 16 + 16 + 16 + 8 with AVX-512), never one <28 x float> that LLVM would
  // split with shuffles.
  for (const std::int64_t columns : {28, 56}) {
    expectMatmulMatchesReference(tiledMatmul(56, columns), 56);
    const std::string ir = codegen::emitLlvmIr(tiledMatmul(56, columns), host());
    EXPECT_EQ(ir.find("<" + std::to_string(columns) + " x float>"), std::string::npos) << ir;
  }
  // A guard whose condition differs between lanes masks each piece separately: C[j] = A[j]
  // for j < 21, the rest untouched; 49 lanes end in a one-lane piece.
  for (const std::int64_t lanes : {28, 49}) {
    const Buffer a = argument("A", lanes), out = argument("C", lanes);
    const Var j = makeVar("j");
    const LoadedKernel kernel =
        compile({"guarded_row",
                 {a, out},
                 makeFor(j, lanes, ForKind::Vectorized,
                         te::makeIfThenElse(te::binary(te::ExprKind::Less, v(j), c(21)),
                                            makeStore(out, v(j), bufferLoad(a, v(j)))))});
    std::vector<float> input = randomFloats(lanes, -1, 1, 5), output(lanes, 7.0f);
    run(kernel, {input.data(), output.data()});
    for (int k = 0; k < lanes; ++k)
      ASSERT_EQ(output[k], k < 21 ? input[k] : 7.0f) << lanes << ": " << k;
  }
}

TEST(CpuCodegen, GuardOfNonDivisibleSplitMasksTheLastVector) {
  // 100 elements in 7 vectors of 16: lanes 100..111 of the last vector are masked off. The
  // output array is longer than the buffer so that a write past the end would show.
  const Buffer a = argument("A", 100), out = argument("C", 100);
  const Var io = makeVar("io"), ii = makeVar("ii");
  const Expr i = v(io) * c(16) + v(ii);
  const Stmt body = makeIfThenElse(
      i < c(100),
      makeIfThenElse(i < c(50), makeStore(out, i, bufferLoad(a, i) * floatImm(2.0) + floatImm(1.0)),
                     makeStore(out, i, call(CallFunction::Neg, {bufferLoad(a, i)}))));
  const LoadedKernel kernel =
      compile({"guarded",
               {a, out},
               makeFor(io, 7, ForKind::Serial, makeFor(ii, 16, ForKind::Vectorized, body))});
  std::vector<float> input = randomFloats(112, -5, 5, 5);
  std::vector<float> output(112, 12345.0f);
  run(kernel, {input.data(), output.data()});
  for (int k = 0; k < 100; ++k)
    ASSERT_TRUE(k < 50 ? isMultiplyAdd(output[k], input[k], 2.0f, 1.0f) : output[k] == -input[k])
        << k << ": " << output[k];
  for (int k = 100; k < 112; ++k)
    ASSERT_EQ(output[k], 12345.0f) << "write past the buffer at " << k;
}
TEST(CpuCodegen, BroadcastAndStridedAccessesInVectorizedLoop) {
  // C[i, j] = A[i] + B[2 * (16 i + j)]: A is lane-invariant (stride 0), B strided by 2.
  const Buffer a = argument("A", 8), b = argument("B", 256), out = argument("C", 128);
  const Var i = makeVar("i"), j = makeVar("j");
  const Expr flat = v(i) * c(16) + v(j);
  const LoweredFunction function{
      "broadcast_gather",
      {a, b, out},
      makeFor(i, 8, ForKind::Serial,
              makeFor(j, 16, ForKind::Vectorized,
                      makeStore(out, flat, bufferLoad(a, v(i)) + bufferLoad(b, flat * c(2)))))};
  const LoadedKernel kernel = compile(function);
  std::vector<float> aValues = randomFloats(8, -1, 1, 9), bValues = randomFloats(256, -1, 1, 10);
  std::vector<float> output(128);
  run(kernel, {aValues.data(), bValues.data(), output.data()});
  for (int r = 0; r < 8; ++r)
    for (int col = 0; col < 16; ++col)
      ASSERT_EQ(output[r * 16 + col], aValues[r] + bValues[2 * (r * 16 + col)]) << r << ", " << col;
  // The strided access is a gather (or LLVM's equivalent), not 16 separate scalar loads.
  const std::string ir = codegen::emitLlvmIr(function, host());
  EXPECT_TRUE(ir.find("masked.gather") != std::string::npos ||
              ir.find("shufflevector <32 x float>") != std::string::npos)
      << ir;
  // A[i] is broadcast from a one-element vector load, never inserted into a vector as a scalar
  // load: VectorCombine's widening of the latter scans back through the block (issue 14).
  const std::string emitted = codegen::emitLlvmIr(function, host(), /*optimized=*/false);
  EXPECT_NE(emitted.find("load <1 x float>"), std::string::npos) << emitted;
  EXPECT_EQ(emitted.find("insertelement <16 x float>"), std::string::npos) << emitted;
}

TEST(CpuCodegen, ParallelLoopNestedInsideParallelLoop) {
  // Captures an argument buffer, an enclosing loop variable and a local buffer.
  const Buffer a = argument("A", 8 * 32), out = argument("C", 8 * 32);
  const Buffer scale = makeBuffer("scale", DataType::Float32, 1, BufferScope::Local);
  const Var i = makeVar("i"), j = makeVar("j");
  const Expr flat = v(i) * c(32) + v(j);
  const Stmt inner = makeFor(j, 32, ForKind::Parallel,
                             makeStore(out, flat,
                                       bufferLoad(a, flat) * bufferLoad(scale, c(0)) +
                                           cast(DataType::Float32, v(i) - v(j))));
  const Stmt body = makeFor(
      i, 8, ForKind::Parallel,
      makeAllocate(
          scale,
          makeSequence({makeStore(scale, c(0), cast(DataType::Float32, v(i) + c(1))), inner})));
  const LoadedKernel kernel = compile({"nested_parallel", {a, out}, body});
  std::vector<float> input = randomFloats(256, -1, 1, 11);
  std::vector<float> output(256, std::nanf(""));
  run(kernel, {input.data(), output.data()});
  for (int r = 0; r < 8; ++r)
    for (int col = 0; col < 32; ++col)
      ASSERT_TRUE(
          isMultiplyAdd(output[r * 32 + col], input[r * 32 + col], float(r + 1), float(r - col)))
          << r << ", " << col << ": " << output[r * 32 + col];
}

TEST(CpuCodegen, ReductionOverVectorizedLoopFallsBackToSequentialMeaning) {
  // sum[0] += A[j] with j vectorized: lanes would overwrite each other's partial sums, so the
  // loop must not run as lanes. Integers make the expected sum exact.
  const Buffer a = argument("A", 40, DataType::Int32), sum = argument("S", 1, DataType::Int32);
  const Var j = makeVar("j");
  const LoadedKernel kernel = compile(
      {"vector_reduction",
       {a, sum},
       makeSequence({makeStore(sum, c(0), intImm(0, DataType::Int32)),
                     makeFor(j, 40, ForKind::Vectorized,
                             makeStore(sum, c(0), bufferLoad(sum, c(0)) + bufferLoad(a, v(j))))})});
  std::vector<std::int32_t> values(40);
  std::int32_t expected = 0;
  for (int k = 0; k < 40; ++k)
    expected += values[k] = k * k - 17;
  std::int32_t result = -1;
  run(kernel, {values.data(), &result});
  EXPECT_EQ(result, expected);
}

TEST(CpuCodegen, LongVectorizedLoopSplitsIntoFullVectorsAndRest) {
  // 150 lanes: two vectors of 64 and one of 22; plus a large local buffer (malloc).
  constexpr int n = 150, big = 20000;
  const Buffer a = argument("A", n), out = argument("C", n);
  const Buffer scratch = makeBuffer("scratch", DataType::Float32, big, BufferScope::Local);
  const Var i = makeVar("i"), j = makeVar("j");
  const Stmt body = makeAllocate(
      scratch,
      makeSequence(
          {makeFor(i, n, ForKind::Vectorized,
                   makeStore(scratch, v(i) + c(big - n), bufferLoad(a, v(i)) * floatImm(3.0))),
           makeFor(j, n, ForKind::Vectorized,
                   makeStore(out, v(j), bufferLoad(scratch, v(j) + c(big - n)) - floatImm(1.0)))}));
  const LoadedKernel kernel = compile({"long_vector", {a, out}, body});
  std::vector<float> input = randomFloats(n, -4, 4, 12), output(n);
  run(kernel, {input.data(), output.data()});
  for (int k = 0; k < n; ++k)
    ASSERT_TRUE(isMultiplyAdd(output[k], input[k], 3.0f, -1.0f)) << k << ": " << output[k];
}

namespace {
// A float array whose first element starts a page right after an inaccessible page, so that
// reading element -1 faults.
class GuardedArray {
public:
  explicit GuardedArray(std::size_t count)
      : page_(static_cast<std::size_t>(sysconf(_SC_PAGESIZE))) {
    bytes_ = page_ + ((count * sizeof(float) + page_ - 1) / page_) * page_;
    memory_ = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory_ == MAP_FAILED)
      throw std::runtime_error("mmap failed");
    mprotect(memory_, page_, PROT_NONE);
  }
  ~GuardedArray() { munmap(memory_, bytes_); }
  float* data() { return reinterpret_cast<float*>(static_cast<char*>(memory_) + page_); }

private:
  std::size_t page_, bytes_;
  void* memory_;
};
} // namespace

TEST(CpuCodegen, SelectEvaluatesAGuardedLoadOnlyWhereChosen) {
  // Zero padding: C[i] = (i >= 1 && i <= 64) ? A[i - 1] : 0 for i in [0, 66). A[-1] sits in an
  // inaccessible page, so an eager load would crash the test.
  constexpr int n = 64;
  GuardedArray guarded(n);
  float* input = guarded.data();
  for (int k = 0; k < n; ++k)
    input[k] = static_cast<float>(k) * 0.5f + 1.0f;
  for (ForKind kind : {ForKind::Vectorized, ForKind::Serial}) {
    const Buffer a = argument("A", n), out = argument("C", n + 2);
    const Var i = makeVar("i");
    const Expr padded =
        select((v(i) >= c(1)) && (v(i) <= c(n)), bufferLoad(a, v(i) - c(1)), floatImm(0.0));
    const LoadedKernel kernel =
        compile({"padding", {a, out}, makeFor(i, n + 2, kind, makeStore(out, v(i), padded))});
    std::vector<float> output(n + 2, -1.0f);
    run(kernel, {input, output.data()});
    for (int k = 0; k < n + 2; ++k)
      ASSERT_EQ(output[k], k >= 1 && k <= n ? input[k - 1] : 0.0f) << k;
  }
}

TEST(CpuCodegen, StridedGuardedLoadsGatherOnlyActiveLanes) {
  // Zero padding around a strided read: C[i] = (i >= 1 && i <= 32) ? A[2 (i - 1)] : 0, one
  // vector gather under a lane mask. A[-2] sits in an inaccessible page, so a lane that loads
  // where the mask is off would crash the test.
  constexpr int n = 32;
  GuardedArray guarded(2 * n);
  float* input = guarded.data();
  for (int k = 0; k < 2 * n; ++k)
    input[k] = static_cast<float>(k) * 0.25f - 3.0f;
  const Buffer a = argument("A", 2 * n), out = argument("C", n + 2);
  const Var i = makeVar("i");
  const Expr padded =
      select((v(i) >= c(1)) && (v(i) <= c(n)), bufferLoad(a, (v(i) - c(1)) * c(2)), floatImm(0.0));
  const LoweredFunction function{
      "strided_padding",
      {a, out},
      makeFor(i, n + 2, ForKind::Vectorized, makeStore(out, v(i), padded))};
  const LoadedKernel kernel = compile(function);
  std::vector<float> output(n + 2, -1.0f);
  run(kernel, {input, output.data()});
  for (int k = 0; k < n + 2; ++k)
    ASSERT_EQ(output[k], k >= 1 && k <= n ? input[2 * (k - 1)] : 0.0f) << k;

  // Where the CPU has no gather instructions (AVX2 Haswell), LLVM would expand a gather under a
  // variable mask into a branch per lane, so the emitter gathers every lane (inactive ones from
  // the buffer's start) and masks the result; with AVX-512 the mask stays on the gather.
  const auto target = [](const char* name) {
    return codegen::loadCpuTarget(std::string(CLUSTUNE_SOURCE_DIR) + "/configs/targets/" + name +
                                  ".json");
  };
  const auto maskedGathers = [&](const char* name, bool allLanes) {
    const std::string ir = codegen::emitLlvmIr(function, target(name), /*optimized=*/false);
    int count = 0;
    for (std::size_t at = ir.find("call"); at != std::string::npos; at = ir.find("call", at + 1)) {
      const std::string line = ir.substr(at, ir.find('\n', at) - at);
      if (line.find("llvm.masked.gather") != std::string::npos &&
          (line.find("<i1 true") != std::string::npos) == allLanes)
        ++count;
    }
    return count;
  };
  EXPECT_EQ(maskedGathers("x86_64-avx2", /*allLanes=*/false), 0);
  EXPECT_GT(maskedGathers("x86_64-avx2", /*allLanes=*/true), 0);
  EXPECT_GT(maskedGathers("x86_64-avx512", /*allLanes=*/false), 0);
}

TEST(CpuCodegen, KernelsCompileAndLoadInParallelThreads) {
  // Each thread compiles, loads and runs its own kernel; two of them share a symbol name.
  const std::vector<float> a = randomFloats(1024, -1, 1, 13), b = randomFloats(1024, -1, 1, 14);
  std::vector<std::vector<float>> outputs(4, std::vector<float>(1024, 0.0f));
  std::vector<std::thread> builders;
  for (int t = 0; t < 4; ++t)
    builders.emplace_back([&, t] {
      const LoadedKernel kernel = compile(t % 2 ? vectorAdd() : tiledMatmul(32));
      run(kernel, {const_cast<float*>(a.data()), const_cast<float*>(b.data()), outputs[t].data()});
    });
  for (std::thread& builder : builders)
    builder.join();
  for (int t = 0; t < 4; ++t) {
    if (t % 2) {
      for (int k = 0; k < 1024; ++k)
        ASSERT_EQ(outputs[t][k], a[k] + b[k]) << k;
      continue;
    }
    for (int i = 0; i < 32; ++i)
      for (int j = 0; j < 32; ++j) {
        double exact = 0, magnitude = 0;
        for (int k = 0; k < 32; ++k) {
          exact += double(a[i * 32 + k]) * b[k * 32 + j];
          magnitude += std::fabs(double(a[i * 32 + k]) * b[k * 32 + j]);
        }
        ASSERT_NEAR(outputs[t][i * 32 + j], exact, 32 * 0x1p-24 * magnitude + 1e-30);
      }
  }
}

TEST(CpuCodegen, ShippedTargetsProduceRunnableCode) {
  // Code for each configured target runs here when this CPU has the target's features.
  const std::string features = host().features;
  for (const char* name : {"x86_64-avx2", "x86_64-avx512"}) {
    const CpuTarget target = codegen::loadCpuTarget(std::string(CLUSTUNE_SOURCE_DIR) +
                                                    "/configs/targets/" + name + ".json");
    const std::string ir = codegen::emitLlvmIr(tiledMatmul(64), target);
    EXPECT_NE(ir.find("\"target-cpu\"=\"" + target.cpu + "\""), std::string::npos) << name;
    bool runnable = true;
    std::string rest = target.features;
    for (std::size_t comma; !rest.empty();
         rest = comma == std::string::npos ? "" : rest.substr(comma + 1)) {
      comma = rest.find(',');
      const std::string feature = rest.substr(0, comma);
      if (features.find(feature + ",") == std::string::npos && !features.ends_with(feature))
        runnable = false;
    }
    if (!runnable)
      continue;
    const LoadedKernel kernel(codegen::compileToObject(vectorAdd(), target), "vector_add");
    std::vector<float> a = randomFloats(1024, -1, 1, 15), b = randomFloats(1024, -1, 1, 16);
    std::vector<float> out(1024);
    run(kernel, {a.data(), b.data(), out.data()});
    for (int k = 0; k < 1024; ++k)
      ASSERT_EQ(out[k], a[k] + b[k]) << name << " " << k;
  }
}

TEST(CpuCodegen, ProblemsAreErrors) {
  const Buffer a = argument("A", 4), stray = argument("X", 4);
  const Var i = makeVar("i"), unbound = makeVar("u");
  EXPECT_THROW(codegen::compileToObject(
                   {"unbound_buffer",
                    {a},
                    makeFor(i, 4, ForKind::Serial, makeStore(a, v(i), bufferLoad(stray, v(i))))},
                   host()),
               Error);
  EXPECT_THROW(codegen::compileToObject(
                   {"unbound_var", {a}, makeStore(a, v(unbound), floatImm(1.0))}, host()),
               Error);
  EXPECT_THROW(codegen::compileToObject({"", {a}, makeStore(a, c(0), floatImm(1.0))}, host()),
               Error);
  // The exported symbol would collide with a function the kernel may call.
  EXPECT_THROW(codegen::compileToObject({"expf", {a}, makeStore(a, c(0), floatImm(1.0))}, host()),
               Error);
  const Var k = makeVar("k");
  EXPECT_THROW(codegen::compileToObject(
                   {"unlowered_reduce",
                    {a},
                    makeStore(a, c(0), reduce(Reducer::Sum, bufferLoad(a, v(k)), {IterVar{k, 4}}))},
                   host()),
               Error);
  CpuTarget badCpu = host();
  badCpu.cpu = "no-such-cpu";
  EXPECT_THROW(codegen::compileToObject({"k", {a}, makeStore(a, c(0), floatImm(1.0))}, badCpu),
               Error);
  CpuTarget badTriple = host();
  badTriple.triple = "nonsense-unknown-none";
  EXPECT_THROW(codegen::compileToObject({"k", {a}, makeStore(a, c(0), floatImm(1.0))}, badTriple),
               Error);
  EXPECT_THROW(LoadedKernel("not an object file", "k"), Error);
  const std::string object =
      codegen::compileToObject({"k", {a}, makeStore(a, c(0), floatImm(1.0))}, host());
  EXPECT_THROW(LoadedKernel(object, "missing_symbol"), Error);
}
