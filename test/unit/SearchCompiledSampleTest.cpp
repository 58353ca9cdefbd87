// Sampled schedules that use cache_write, rfactor, packed operands, padding per tile and
// flattened positions, compiled through LLVM (lib/codegen/cpu)
// and run on seeded inputs: the compiled kernels compute what the te reference interpreter
// computes, so the new stages survive code generation (local tile buffers inside parallel
// loops, vectorized partial results, guards of non-divisible tiles).
#include "CpuCodegenTestSupport.h"
#include "ScheduleTestSupport.h"
#include "SearchTestSupport.h"
#include "search/Sample.h"
#include "te/Interpreter.h"

#include <gtest/gtest.h>

using namespace clustune;
namespace st = clustune::schedule::testing;
namespace cg = clustune::codegen::testing;

namespace {

::testing::AssertionResult compiledMatchesReference(const te::Workload& workload,
                                                    const std::vector<schedule::Step>& steps) {
  const te::LoweredFunction function =
      schedule::lower(workload, schedule::replay(workload, steps), "sampled");
  const codegen::LoadedKernel kernel = cg::compile(function);
  std::vector<te::TensorData> inputs = st::randomInputs(workload, 21);
  const std::vector<te::TensorData> expected = te::evaluateWorkload(workload, inputs);
  std::vector<te::TensorData> outputs;
  for (const te::Tensor& output : workload.outputs)
    outputs.emplace_back(output->dtype, output->shape);
  std::vector<void*> arguments;
  for (te::TensorData& input : inputs)
    arguments.push_back(input.data());
  for (te::TensorData& output : outputs)
    arguments.push_back(output.data());
  cg::run(kernel, arguments);
  for (std::size_t k = 0; k < outputs.size(); ++k)
    if (auto result = st::allClose(outputs[k], expected[k], 1e-4); !result)
      return result << " (output " << k << ") of " << schedule::toJson(steps).dump();
  return ::testing::AssertionSuccess();
}

TEST(SearchCompiledSample, CacheWriteAndRfactorSamplesCompileToCorrectKernels) {
  int cached = 0, factored = 0;
  for (const st::TestWorkload& test : {st::matmul(6, 40, 200), st::softmax(3, 80)}) {
    int compiled = 0;
    for (const auto& steps : search::sample(test.workload, 30, 8, {.cores = 2})) {
      bool usesCache = false, usesRfactor = false;
      for (const schedule::Step& step : steps) {
        usesCache = usesCache || std::holds_alternative<schedule::CacheWriteStep>(step);
        usesRfactor = usesRfactor || std::holds_alternative<schedule::RfactorStep>(step);
      }
      // Compiling takes a while: only the samples with a new step, a few per workload.
      if ((!usesCache && !usesRfactor) || compiled == 4)
        continue;
      ++compiled;
      cached += usesCache;
      factored += usesRfactor;
      EXPECT_TRUE(compiledMatchesReference(test.workload, steps)) << test.workload.key;
    }
  }
  EXPECT_GT(cached, 0);
  EXPECT_GT(factored, 0);
}

// The rules of our own (Sketch.h): a GEMM's B packed per tile, a padded convolution's border
// copied per tile, and a 1x1 convolution tiled over its flattened positions (with its input
// packed too), each compiled and run.
TEST(SearchCompiledSample, PackedPaddedAndFlattenedSamplesCompileToCorrectKernels) {
  const te::Workload gemm = st::matmul(6, 40, 200).workload;
  const te::Workload padded = te::lowerTask(search::testing::convBiasReluTask());
  const te::Workload pointwise = te::lowerTask(search::testing::conv1x1Task());
  int packed = 0, paddedPerTile = 0, flattened = 0;
  for (const te::Workload* workload : {&gemm, &padded, &pointwise}) {
    int compiled = 0;
    for (const auto& steps : search::sample(*workload, 40, 8, {.cores = 2})) {
      bool packs = false, padsPerTile = false, flattens = false;
      for (const schedule::Step& step : steps) {
        packs = packs || std::holds_alternative<schedule::CacheReadStep>(step);
        if (const auto* at = std::get_if<schedule::ComputeAtStep>(&step))
          padsPerTile = padsPerTile || (workload == &padded && at->stage == 0);
      }
      flattens = workload == &pointwise && std::holds_alternative<schedule::FuseStep>(steps[0]);
      if ((!packs && !padsPerTile && !flattens) || compiled == 4)
        continue;
      ++compiled;
      packed += packs;
      paddedPerTile += padsPerTile;
      flattened += flattens;
      EXPECT_TRUE(compiledMatchesReference(*workload, steps)) << workload->key;
    }
  }
  EXPECT_GT(packed, 1);
  EXPECT_GT(paddedPerTile, 1);
  EXPECT_GT(flattened, 1);
}

} // namespace
