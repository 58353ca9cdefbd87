// The default CPU schedule (lib/schedule/DefaultSchedule.h): which stages it inlines, how far
// it fuses outer loops for parallelism, which vector length it picks, where it puts the reduce
// loops of a reduction, and that every default schedule computes the same values as the
// te reference interpreter and the plain C++ references.
#include "schedule/DefaultSchedule.h"

#include "ScheduleTestSupport.h"
#include "te/Interpreter.h"

#include <gtest/gtest.h>

using namespace clustune::schedule;
using namespace clustune::schedule::testing;
namespace te = clustune::te;

namespace {

// Y = max(X, 0) over X[1, channels, height, width].
TestWorkload relu4d(std::int64_t channels, std::int64_t height, std::int64_t width) {
  const Tensor x = te::placeholder("X", {1, channels, height, width});
  const Tensor y = te::compute("Y", {1, channels, height, width}, [&](const Indices& i) {
    return te::maximum(te::load(x, {i[0], i[1], i[2], i[3]}), te::floatImm(0.0));
  });
  Reference reference = [](const std::vector<TensorData>& inputs) {
    TensorData result(DataType::Float32, inputs[0].shape());
    for (std::int64_t e = 0; e < result.elements(); ++e)
      result.set(e, std::max(inputs[0].get(e), 0.0));
    return std::vector<TensorData>{result};
  };
  return {Workload{.key = "relu", .inputs = {x}, .stages = {y}, .outputs = {y}}, reference};
}

std::string loopSummary(const TestWorkload& test, const CpuScheduleOptions& options) {
  const State state = replay(test.workload, defaultSchedule(test.workload, options));
  std::string summary;
  for (const Stage& stage : state.stages()) {
    if (stage.isInlined())
      continue;
    for (std::size_t position = 0; position < stage.loops.size(); ++position) {
      const Iterator& loop = stage.loop(position);
      summary += (summary.empty() ? "" : " ") + std::to_string(loop.extent);
      if (loop.annotation != Annotation::None)
        summary += std::string(":") + annotationName(loop.annotation);
    }
    summary += " |";
  }
  return summary;
}

TEST(DefaultSchedule, MatmulRunsRowsInParallelAndAccumulatesARegisterTileOverK) {
  const TestWorkload test = matmul(64, 64, 64);
  const std::vector<Step> steps = defaultSchedule(test.workload, {.cores = 2, .vectorLanes = 16});
  // Columns: 64 = 1 x 4 (unrolled) x 16 (vectorized), below k; rows in parallel.
  const std::vector<Step> expected = {
      SplitStep{.stage = 0, .iterator = 1, .factors = {4, 16}},
      ReorderStep{.stage = 0, .order = {0, 1, 4, 2, 3}},
      AnnotationStep{.stage = 0, .iterator = 4, .annotation = Annotation::Vectorize},
      AnnotationStep{.stage = 0, .iterator = 3, .annotation = Annotation::Unroll},
      AnnotationStep{.stage = 0, .iterator = 0, .annotation = Annotation::Parallel}};
  EXPECT_EQ(steps, expected);
  const State state = replay(test.workload, steps);
  const std::string text = te::toString(lower(test.workload, state, "matmul"));
  EXPECT_TRUE(containsInOrder(
      text, {"for C.i0 in 0..64 parallel:", "for C.i1.0 in 0..1:", "for C.i1.1 in 0..4 unrolled:",
             "for C.i1.2 in 0..16 vectorized:", "C[(((C.i0 * 64) + (C.i1.1 * 16)) + C.i1.2)] = 0f",
             "for k in 0..64:", "for C.i1.1 in 0..4 unrolled:", "for C.i1.2 in 0..16 vectorized:",
             "C[(((C.i0 * 64) + (C.i1.1 * 16)) + C.i1.2)] = (C[(((C.i0 * 64) + (C.i1.1 * 16)) + "
             "C.i1.2)] + (A[((C.i0 * 64) + k)] * B[(((k * 64) + (C.i1.1 * 16)) + C.i1.2)]))"}))
      << text;
  // The innermost loop is the vectorized one.
  const std::size_t lastLoop = text.rfind("for ");
  EXPECT_NE(text.find("vectorized", lastLoop), std::string::npos) << text;
  EXPECT_TRUE(matchesReference(test, state));
}

TEST(DefaultSchedule, InlinesEveryStageThatIsNeitherAnOutputNorAReduction) {
  auto inlined = [](const TestWorkload& test) {
    std::vector<int> stages;
    for (const Step& step : defaultSchedule(test.workload, {}))
      if (const auto* inlineStep = std::get_if<ComputeInlineStep>(&step))
        stages.push_back(inlineStep->stage);
    return stages;
  };
  EXPECT_EQ(inlined(elementwiseChain(4, 6)), (std::vector<int>{0, 1}));
  EXPECT_EQ(inlined(paddedConvolution(2, 2, 4, 4)), std::vector<int>{0}); // the pad stage
  EXPECT_EQ(inlined(softmax(2, 8)), std::vector<int>{1});                 // exp, not M or S
  EXPECT_EQ(inlined(stencilChain(8)), (std::vector<int>{0, 1}));
  EXPECT_TRUE(inlined(matmul(4, 4, 4)).empty());
}

TEST(DefaultSchedule, FusesOuterLoopsUntilThereAreFourIterationsPerCore) {
  // [1, 4, 3, 56]: 56 = 7 x 8 vectorized; the outer loops fuse up to 4 x cores.
  const TestWorkload test = relu4d(4, 3, 56);
  EXPECT_EQ(loopSummary(test, {.cores = 1, .vectorLanes = 16}), "4:parallel 3 7 8:vectorize |");
  EXPECT_EQ(loopSummary(test, {.cores = 2, .vectorLanes = 16}), "12:parallel 7 8:vectorize |");
  // 12 < 32: the outer part of the split width joins too (84), only the vector loop stays.
  EXPECT_EQ(loopSummary(test, {.cores = 8, .vectorLanes = 16}), "84:parallel 8:vectorize |");
  // [1, 2, 2, 16]: all outer loops fused and still below 4 x 8.
  EXPECT_EQ(loopSummary(relu4d(2, 2, 16), {.cores = 8, .vectorLanes = 16}),
            "4:parallel 16:vectorize |");
  EXPECT_TRUE(
      matchesReference(test, replay(test.workload, defaultSchedule(test.workload, {.cores = 2}))));
}

TEST(DefaultSchedule, VectorizesTheInnermostLoopWithTheWidestDividingLength) {
  const CpuScheduleOptions avx512{.cores = 1, .vectorLanes = 16};
  const CpuScheduleOptions avx2{.cores = 1, .vectorLanes = 8};
  EXPECT_EQ(loopSummary(relu4d(8, 2, 48), avx512), "8:parallel 2 3 16:vectorize |");
  EXPECT_EQ(loopSummary(relu4d(8, 2, 48), avx2), "8:parallel 2 6 8:vectorize |");
  // Equal to a vector length: vectorized without a split.
  EXPECT_EQ(loopSummary(relu4d(8, 2, 16), avx512), "8:parallel 2 16:vectorize |");
  // A divisor wider than twice the widest power of two wins: 12 lanes rather than 4, and 7
  // (the width of late CNN layers) as one 7-lane vector.
  EXPECT_EQ(loopSummary(relu4d(8, 2, 12), avx512), "8:parallel 2 12:vectorize |");
  EXPECT_EQ(loopSummary(relu4d(8, 2, 7), avx512), "8:parallel 2 7:vectorize |");
  EXPECT_EQ(loopSummary(relu4d(8, 2, 56), avx512), "8:parallel 2 7 8:vectorize |");
  // A prime longer than a vector: full vectors and a guarded tail (37 = 2 x 16 + 5).
  EXPECT_EQ(loopSummary(relu4d(8, 2, 37), avx512), "8:parallel 2 3 16:vectorize |");
  // An empty tensor (a zero-size Split output) is not split for vectors.
  EXPECT_EQ(loopSummary(relu4d(8, 2, 0), avx512), "8:parallel 2 0 |");
  // 2 is below the narrowest vector: serial.
  EXPECT_EQ(loopSummary(relu4d(8, 2, 2), avx512), "8:parallel 2 2 |");
  EXPECT_EQ(loopSummary(relu4d(8, 2, 64), {.cores = 1, .vectorLanes = 2}), "8:parallel 2 64 |");
}

TEST(DefaultSchedule, ReductionsKeepSpatialLoopsOutsideAndTheVectorLoopInnermost) {
  // The register tile is 4 vectors when they divide the row, else 2, else none.
  EXPECT_EQ(loopSummary(matmul(8, 128, 4), {.cores = 1}), "8:parallel 2 4 4:unroll 16:vectorize |");
  EXPECT_EQ(loopSummary(matmul(8, 32, 4), {.cores = 1}), "8:parallel 1 4 2:unroll 16:vectorize |");
  EXPECT_EQ(loopSummary(matmul(8, 48, 4), {.cores = 1}), "8:parallel 3 4 16:vectorize |");
  // conv [1, 4, 6, 8] over (rc, rh, rw) = (2, 3, 3): width 8 is one vector.
  EXPECT_EQ(loopSummary(paddedConvolution(2, 4, 6, 8), {.cores = 2}),
            "24:parallel 2 3 3 8:vectorize |");
  // The reductions over rows of 10 keep their natural order (the vector loop would be a
  // reduce loop); the element-wise output vectorizes its row of 10.
  EXPECT_EQ(loopSummary(softmax(3, 10), {.cores = 2}),
            "3:parallel 10 | 3:parallel 10 | 3:parallel 10:vectorize |");
  // A rank-0 reduction has no spatial loop to parallelize or vectorize.
  EXPECT_EQ(loopSummary(totalSum(4, 8), {.cores = 2}), "4 8 |");
}

TEST(DefaultSchedule, EveryDefaultScheduleComputesTheReferenceValues) {
  const TestWorkload workloads[] = {
      elementwiseChain(6, 32), matmul(16, 48, 20), paddedConvolution(3, 4, 6, 8),
      softmax(5, 24),          stencilChain(20),   totalSum(6, 7),
      relu4d(3, 5, 40)};
  for (const TestWorkload& test : workloads) {
    for (int cores : {1, 2, 16}) {
      const State state = replay(
          test.workload, defaultSchedule(test.workload, {.cores = cores, .vectorLanes = 16}));
      const std::vector<TensorData> inputs = randomInputs(test.workload, 11);
      const std::vector<TensorData> actual = runState(test.workload, state, inputs);
      const std::vector<TensorData> interpreted = te::evaluateWorkload(test.workload, inputs);
      const std::vector<TensorData> expected = test.reference(inputs);
      ASSERT_EQ(actual.size(), expected.size());
      for (std::size_t k = 0; k < actual.size(); ++k) {
        EXPECT_TRUE(allClose(actual[k], interpreted[k])) << test.workload.key << " cores " << cores;
        EXPECT_TRUE(allClose(actual[k], expected[k])) << test.workload.key << " cores " << cores;
      }
    }
  }
}

} // namespace
