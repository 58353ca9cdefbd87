// Sampled schedules that use cache_write and rfactor, compiled through LLVM (lib/codegen/cpu)
// and run on seeded inputs: the compiled kernels compute what the te reference interpreter
// computes, so the new stages survive code generation (local tile buffers inside parallel
// loops, vectorized partial results, guards of non-divisible tiles).
#include "CpuCodegenTestSupport.h"
#include "ScheduleTestSupport.h"
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

} // namespace
