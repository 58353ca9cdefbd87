// The cache_write step (lib/schedule/CacheWrite.cpp, State.cpp): its JSON form, Ansor's stage
// renumbering, the reasons it is refused, and that lowering with the cache computed at a tile
// of the copy (with non-divisible splits, padding and an epilogue) computes what the te
// reference interpreter computes, in the loop interpreter and in LLVM-compiled code, where the
// tile stays in registers.
#include "CompiledScheduleTestSupport.h"
#include "CpuCodegenTestSupport.h"
#include "ScheduleTestSupport.h"
#include "schedule/Lower.h"
#include "schedule/State.h"
#include "support/Error.h"
#include "te/Interpreter.h"

#include <gtest/gtest.h>

using namespace clustune::schedule;
using namespace clustune::schedule::testing;
using clustune::Error;
namespace te = clustune::te;

namespace {

std::string lowered(const Workload& workload, const State& state) {
  return te::toString(lower(workload, state, "f"));
}

// The reason of the InvalidScheduleError that `step` raises after `before`.
// The loop interpreter against te::evaluateWorkload, on seeded inputs.
::testing::AssertionResult matchesInterpreter(const Workload& workload, const State& state,
                                              std::uint64_t seed = 5) {
  const std::vector<TensorData> inputs = randomInputs(workload, seed);
  const std::vector<TensorData> expected = te::evaluateWorkload(workload, inputs);
  const std::vector<TensorData> actual = runState(workload, state, inputs);
  for (std::size_t k = 0; k < expected.size(); ++k)
    if (auto result = allClose(actual[k], expected[k], 1e-5); !result)
      return result << " (output " << k << ")\n" << lowered(workload, state);
  return ::testing::AssertionSuccess();
}

// Y = relu(conv(pad(X)) + bias): pad, conv, bias, relu (the output), as a task lowers.
Workload convolutionBiasRelu(std::int64_t channels, std::int64_t filters, std::int64_t size) {
  const Workload conv = paddedConvolution(channels, filters, size, size).workload;
  const Tensor convolution = conv.outputs[0];
  const Tensor bias = te::placeholder("bias", {filters});
  const Tensor biased = te::compute("biased", convolution->shape, [&](const Indices& i) {
    return te::load(convolution, i) + te::load(bias, {i[1]});
  });
  const Tensor relu = te::compute("relu", convolution->shape, [&](const Indices& i) {
    return te::maximum(te::load(biased, i), te::floatImm(0.0));
  });
  return Workload{.key = "conv_bias_relu",
                  .inputs = {conv.inputs[0], conv.inputs[1], bias},
                  .stages = {conv.stages[0], convolution, biased, relu},
                  .outputs = {relu}};
}

TEST(ScheduleCacheWrite, JsonRoundTripAndFixedFieldOrder) {
  const Step step = CacheWriteStep{.stage = 3};
  const std::string text = toJson(step).dump();
  EXPECT_EQ(text, R"({"step":"cache_write","stage":3,"scope":"local"})");
  EXPECT_EQ(stepFromJson(nlohmann::json::parse(text)), step);
  EXPECT_EQ(toString(step), "cache_write(stage 3, local)");
  const std::vector<Step> steps = {
      CacheWriteStep{.stage = 0}, SplitStep{.stage = 1, .iterator = 0, .factors = {4}},
      ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = 0}};
  EXPECT_EQ(stepsFromJson(nlohmann::ordered_json::parse(toJson(steps).dump())), steps);
}

TEST(ScheduleCacheWrite, MalformedJsonIsRejected) {
  EXPECT_EQ(stepJsonError(R"({"step":"cache_write","stage":0})"),
            "schedule step 'cache_write': missing field 'scope'");
  EXPECT_EQ(stepJsonError(R"({"step":"cache_write","stage":0,"scope":"shared"})"),
            "schedule step 'cache_write': unknown scope 'shared' (the CPU has only \"local\")");
  EXPECT_EQ(stepJsonError(R"({"step":"cache_write","stage":0,"scope":"local","readers":[1]})"),
            "schedule step 'cache_write': unknown field 'readers'");
  EXPECT_EQ(stepJsonError(R"({"step":"cache_write","stage":"0","scope":"local"})"),
            "schedule step 'cache_write': field 'stage' must be an integer");
  EXPECT_EQ(stepJsonError(R"({"step":"cache_write","stage":0,"scope":1})"),
            "schedule step 'cache_write': field 'scope' must be a string");
}

TEST(ScheduleCacheWrite, TheCacheTakesTheStageIndexAndLaterStagesMoveUp) {
  const TestWorkload test = softmax(3, 10);
  // S (stage 2) computed at Y (stage 3) before the cache_write of M (stage 0).
  const State state =
      replay(test.workload, {ComputeAtStep{.stage = 2, .targetStage = 3, .targetIterator = 0},
                             CacheWriteStep{.stage = 0}});
  ASSERT_EQ(state.stages().size(), 5u);
  std::vector<std::string> names;
  for (const Stage& stage : state.stages())
    names.push_back(stage.tensor->name);
  EXPECT_EQ(names, (std::vector<std::string>{"M.local", "M", "E", "S", "Y"}));
  EXPECT_TRUE(state.stages()[0].tensor->isReduction());
  EXPECT_FALSE(state.stages()[1].tensor->isReduction());
  EXPECT_EQ(state.stages()[3].location.kind, ComputeLocationKind::At);
  EXPECT_EQ(state.stages()[3].location.targetStage, 4);
  EXPECT_EQ(state.stages()[4].outputIndex, 0);
  // E now reads the copy, which reads the cache.
  EXPECT_EQ(effectiveConsumers(state, 0), std::vector<int>{1});
  EXPECT_EQ(effectiveConsumers(state, 1), std::vector<int>{2});
  EXPECT_TRUE(matchesReference(test, state));
  EXPECT_TRUE(matchesInterpreter(test.workload, state));
}

TEST(ScheduleCacheWrite, IllegalCacheWritesAreRejectedWithTheirReason) {
  const Workload product = matmul(8, 8, 8).workload;
  const Workload conv = paddedConvolution(2, 2, 4, 4).workload;
  EXPECT_EQ(rejectionReason(product, {}, CacheWriteStep{.stage = 1}),
            "stage 1 does not exist (the workload has 1 stages)");
  EXPECT_EQ(rejectionReason(product, {}, CacheWriteStep{.stage = 0, .scope = "shared"}),
            "unknown scope 'shared' (the CPU has only \"local\")");
  EXPECT_EQ(rejectionReason(product, {SplitStep{.stage = 0, .iterator = 0, .factors = {2}}},
                            CacheWriteStep{.stage = 0}),
            "cache_write must come before any loop step on stage 'C' (its loops start afresh, "
            "as in Ansor)");
  EXPECT_EQ(rejectionReason(product, {ReorderStep{.stage = 0, .order = {1, 0, 2}}},
                            CacheWriteStep{.stage = 0}),
            "cache_write must come before any loop step on stage 'C' (its loops start afresh, "
            "as in Ansor)");
  EXPECT_EQ(rejectionReason(
                product,
                {AnnotationStep{.stage = 0, .iterator = 0, .annotation = Annotation::Parallel}},
                CacheWriteStep{.stage = 0}),
            "cache_write must come before annotating stage 'C'");
  EXPECT_EQ(rejectionReason(product,
                            {PragmaStep{.stage = 0, .iterator = 0, .autoUnrollMaxStep = 16}},
                            CacheWriteStep{.stage = 0}),
            "cache_write must come before the pragma of stage 'C'");
  EXPECT_EQ(rejectionReason(conv, {ComputeInlineStep{.stage = 0}}, CacheWriteStep{.stage = 0}),
            "stage 'pad' is inlined");
  EXPECT_EQ(rejectionReason(conv,
                            {ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = 2}},
                            CacheWriteStep{.stage = 1}),
            "cache_write of stage 'conv' must come before computing 'pad' at it");
  EXPECT_EQ(rejectionReason(conv,
                            {ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = 2}},
                            CacheWriteStep{.stage = 0}),
            "cache_write needs stage 'pad' at root");
}

TEST(ScheduleCacheWrite, RootCacheOfAMatmulIsAFullLocalBufferCopiedOnce) {
  const TestWorkload test = matmul(4, 6, 5);
  const State state = replay(test.workload, {CacheWriteStep{.stage = 0}});
  EXPECT_EQ(lowered(test.workload, state),
            "function f(A: float32[20], B: float32[30], C: float32[24]):\n"
            "  allocate C.local: float32[24]\n"
            "  for C.local.i0 in 0..4:\n"
            "    for C.local.i1 in 0..6:\n"
            "      C.local[((C.local.i0 * 6) + C.local.i1)] = 0f\n"
            "      for k in 0..5:\n"
            "        C.local[((C.local.i0 * 6) + C.local.i1)] = (C.local[((C.local.i0 * 6) + "
            "C.local.i1)] + (A[((C.local.i0 * 5) + k)] * B[((k * 6) + C.local.i1)]))\n"
            "  for C.i0 in 0..4:\n"
            "    for C.i1 in 0..6:\n"
            "      C[((C.i0 * 6) + C.i1)] = C.local[((C.i0 * 6) + C.i1)]\n");
  EXPECT_TRUE(matchesReference(test, state));
}

// The point of cache_write: the copy is tiled, the cache computed per tile into a local buffer
// of the tile's size, written out once. 10 x 14 tiled by 4 x 6 leaves partial tiles.
TEST(ScheduleCacheWrite, CacheComputedAtTheCopysTileAccumulatesInATileSizedBuffer) {
  const TestWorkload test = matmul(10, 14, 9);
  const std::vector<Step> steps = {
      CacheWriteStep{.stage = 0}, SplitStep{.stage = 1, .iterator = 0, .factors = {4}},
      SplitStep{.stage = 1, .iterator = 2, .factors = {6}},
      ReorderStep{.stage = 1, .order = {0, 2, 1, 3}},
      ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = 1},
      // The cache's own loops: k split by 4 (9 is not a multiple), reduce outside the tile.
      SplitStep{.stage = 0, .iterator = 2, .factors = {4}},
      ReorderStep{.stage = 0, .order = {2, 3, 0, 1}},
      AnnotationStep{.stage = 0, .iterator = 3, .annotation = Annotation::Vectorize},
      AnnotationStep{.stage = 1, .iterator = 0, .annotation = Annotation::Parallel}};
  const State state = replay(test.workload, steps);
  const std::string text = lowered(test.workload, state);
  EXPECT_TRUE(containsInOrder(
      text, {"for C.i0.0 in 0..3 parallel:", "for C.i1.0 in 0..3:", "allocate C.local: float32[24]",
             "for C.local.i0 in 0..4:", "= 0f",
             "for k.0 in 0..3:", "for k.1 in 0..4:", "for C.local.i1 in 0..6 vectorized:",
             "for C.i0.1 in 0..4:", "for C.i1.1 in 0..6:", "C.local["}))
      << text;
  EXPECT_TRUE(matchesReference(test, state));
  EXPECT_TRUE(matchesInterpreter(test.workload, state));
  // Replayed from its JSON record, the schedule lowers to the same program.
  const State replayed =
      replay(test.workload, stepsFromJson(nlohmann::json::parse(toJson(steps).dump())));
  EXPECT_EQ(lowered(test.workload, replayed), text);
}

TEST(ScheduleCacheWrite, CacheAtEveryLoopOfTheCopyComputesTheSameValues) {
  const TestWorkload test = matmul(7, 10, 5);
  for (int loop = 0; loop < 4; ++loop) {
    const State state =
        replay(test.workload,
               {CacheWriteStep{.stage = 0}, SplitStep{.stage = 1, .iterator = 1, .factors = {4}},
                FuseStep{.stage = 1, .iterators = {0, 1}},
                SplitStep{.stage = 1, .iterator = 0, .factors = {3}},
                ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = loop % 3}});
    EXPECT_TRUE(matchesInterpreter(test.workload, state)) << "loop " << loop;
  }
}

TEST(ScheduleCacheWrite, PaddedConvolutionWithBiasReluEpilogue) {
  const Workload workload = convolutionBiasRelu(3, 5, 7);
  // Stages: pad 0, conv 1, biased 2, relu 3. After cache_write(1): pad 0, conv.local 1, conv 2,
  // biased 3, relu 4.
  const std::vector<Step> common = {ComputeInlineStep{.stage = 0}, CacheWriteStep{.stage = 1},
                                    ComputeInlineStep{.stage = 3}};
  const State plain = replay(workload, common);
  EXPECT_EQ(plain.stages()[2].tensor->name, "conv");
  EXPECT_EQ(plain.stages()[4].tensor->name, "relu");
  EXPECT_TRUE(matchesInterpreter(workload, plain));

  // conv's copy tiled 2 x 3 x 4 (5, 7, 7 are not multiples) with the cache at its tile, the
  // copy at relu's matching tile loop, and the padding computed at the cache's channel loop.
  std::vector<Step> tiled = {CacheWriteStep{.stage = 1},
                             SplitStep{.stage = 2, .iterator = 1, .factors = {2}},
                             SplitStep{.stage = 2, .iterator = 3, .factors = {3}},
                             SplitStep{.stage = 2, .iterator = 5, .factors = {4}},
                             ReorderStep{.stage = 2, .order = {0, 1, 3, 5, 2, 4, 6}},
                             ComputeAtStep{.stage = 1, .targetStage = 2, .targetIterator = 3},
                             ComputeInlineStep{.stage = 3},
                             ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = 4}};
  const State state = replay(workload, tiled);
  const std::string text = lowered(workload, state);
  EXPECT_TRUE(containsInOrder(text, {"allocate conv.local: float32[24]", "allocate pad:"})) << text;
  EXPECT_TRUE(matchesInterpreter(workload, state));
  // The copy computed at relu's width loop: one element per iteration.
  tiled.push_back(ComputeAtStep{.stage = 2, .targetStage = 4, .targetIterator = 3});
  EXPECT_TRUE(matchesInterpreter(workload, replay(workload, tiled)));
}

TEST(ScheduleCacheWrite, CompiledCacheWriteScheduleMatchesTheReference) {
  const TestWorkload test = matmul(18, 40, 13);
  const State state =
      replay(test.workload,
             {CacheWriteStep{.stage = 0}, SplitStep{.stage = 1, .iterator = 0, .factors = {4}},
              SplitStep{.stage = 1, .iterator = 2, .factors = {16}},
              ReorderStep{.stage = 1, .order = {0, 2, 1, 3}},
              AnnotationStep{.stage = 1, .iterator = 0, .annotation = Annotation::Parallel},
              ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = 1},
              ReorderStep{.stage = 0, .order = {2, 0, 1}},
              AnnotationStep{.stage = 0, .iterator = 2, .annotation = Annotation::Vectorize},
              AnnotationStep{.stage = 1, .iterator = 3, .annotation = Annotation::Vectorize},
              PragmaStep{.stage = 0, .iterator = 0, .autoUnrollMaxStep = 64}});
  EXPECT_TRUE(compiledMatchesInterpreter(test.workload, state, "cache_write_matmul", {18, 40}, 3));
}

// The point of the step: with the cache's tile loops unrolled and vectorized, LLVM keeps the
// whole 8 x 32 accumulator tile in vector registers; no stack buffer survives optimisation.
TEST(ScheduleCacheWrite, TheCompiledTileAccumulatesInRegisters) {
  const TestWorkload test = matmul(64, 64, 64);
  const State state =
      replay(test.workload,
             {CacheWriteStep{.stage = 0}, SplitStep{.stage = 1, .iterator = 1, .factors = {32}},
              SplitStep{.stage = 1, .iterator = 0, .factors = {8}},
              ReorderStep{.stage = 1, .order = {0, 2, 1, 3}},
              ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = 1},
              SplitStep{.stage = 0, .iterator = 2, .factors = {8}},
              ReorderStep{.stage = 0, .order = {2, 3, 0, 1}},
              AnnotationStep{.stage = 0, .iterator = 2, .annotation = Annotation::Unroll},
              AnnotationStep{.stage = 0, .iterator = 3, .annotation = Annotation::Vectorize},
              AnnotationStep{.stage = 1, .iterator = 3, .annotation = Annotation::Vectorize}});
  const te::LoweredFunction function = lower(test.workload, state, "tile");
  EXPECT_NE(te::toString(function).find("allocate C.local: float32[256]"), std::string::npos);
  const std::string ir =
      clustune::codegen::emitLlvmIr(function, clustune::codegen::testing::host());
  EXPECT_EQ(ir.find("alloca"), std::string::npos) << ir;
  EXPECT_NE(ir.find(" x float>"), std::string::npos) << ir;
}

} // namespace
