// Measurement for a CUDA target (measure/Measurer.h with MeasureOptions::gpu): candidates build
// to PTX (on threads and in isolated build processes alike), a schedule beyond the target's
// limits is a compile record, and the worker runs them on the GPU. Where there is no GPU, every
// candidate is a runtime record that says why, and nothing crashes; where there is one (the
// device machine), the same test measures them and checks them against the CPU's reference.
#include "MeasureTestSupport.h"
#include "codegen/cuda/CudaTarget.h"
#include "codegen/cuda/Ptxas.h"
#include "measure/Builder.h"
#include "measure/Measurer.h"
#include "runtime/cuda/CudaDriver.h"
#include "schedule/DefaultGpuSchedule.h"
#include "search/Sample.h"

#include <gtest/gtest.h>

using namespace clustune;
using namespace clustune::measure;
using namespace clustune::measure::testing;

namespace {

codegen::CudaTarget h200() {
  return codegen::CudaTarget{.arch = "sm_90", .smCount = 132};
}

std::vector<schedule::Step> gpuSteps(const graph::Task& task,
                                     const codegen::CudaTarget& target = h200()) {
  return schedule::defaultGpuSchedule(
      te::lowerTask(task), {.threadsPerBlock = std::min(256, target.maxThreadsPerBlock)});
}

bool machineHasCuda() {
  try {
    runtime::cuda::CudaDriver::open();
    return true;
  } catch (const Error&) {
    return false;
  }
}

TEST(GpuMeasureTest, CandidatesBuildToPtxAndCubinOnThreadsAndInBuildProcesses) {
  const graph::Task matmul = matmulTask(64, 48, 40);
  const graph::Task addRelu = addReluTask(16, 300);
  const std::vector<MeasureInput> inputs = {{matmul, gpuSteps(matmul)},
                                            {addRelu, gpuSteps(addRelu)}};
  const std::vector<BuildResult> onThreads = build(inputs, h200(), 2);
  const std::vector<BuildResult> inChildren = build(inputs, h200(), 2, /*timeoutSeconds=*/120);
  ASSERT_EQ(onThreads.size(), 2u);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    ASSERT_TRUE(onThreads[i].ok()) << onThreads[i].errorDetail;
    EXPECT_TRUE(onThreads[i].isGpu());
    EXPECT_TRUE(onThreads[i].objectBytes.empty());
    EXPECT_NE(onThreads[i].gpu.ptx.find(".target sm_90"), std::string::npos);
    ASSERT_FALSE(onThreads[i].gpu.launches.empty());
    EXPECT_EQ(inChildren[i].gpu.ptx, onThreads[i].gpu.ptx);
    // Assembled on the build cores where ptxas is there, the same in both.
    EXPECT_EQ(onThreads[i].gpu.cubin.empty(), !codegen::findPtxas().has_value());
    EXPECT_EQ(inChildren[i].gpu.cubin, onThreads[i].gpu.cubin);
    EXPECT_EQ(inChildren[i].gpu.launches, onThreads[i].gpu.launches);
    EXPECT_EQ(inChildren[i].arguments, onThreads[i].arguments);
  }
  // 64 x 48 outputs, 256 threads a block.
  EXPECT_EQ(onThreads[0].gpu.launches[0].grid[0] * onThreads[0].gpu.launches[0].block[0], 64 * 48);
}

TEST(GpuMeasureTest, AScheduleBeyondTheTargetsThreadLimitIsACompileRecord) {
  const graph::Task addRelu = addReluTask(16, 300);
  codegen::CudaTarget small = h200();
  small.maxThreadsPerBlock = 32;
  const BuildResult built = buildCandidate({addRelu, gpuSteps(addRelu)}, small); // 256 threads
  EXPECT_EQ(built.error, errors::kCompile);
  EXPECT_NE(built.errorDetail.find("more than the target's 32"), std::string::npos)
      << built.errorDetail;
}

TEST(GpuMeasureTest, CandidatesRunOnTheGpuOrSayWhyThereIsNone) {
  const graph::Task matmul = matmulTask(64, 48, 40);
  const graph::Task addRelu = addReluTask(16, 300);
  const graph::Task exp = unaryTask("Exp", {3, 77});
  MeasureOptions options{.runner = quickRunnerOptions(), .gpu = h200(), .buildParallelism = 2};
  Measurer measurer(host(), options);
  const std::vector<MeasureResult> results = measurer.measure(
      {{matmul, gpuSteps(matmul)}, {addRelu, gpuSteps(addRelu)}, {exp, gpuSteps(exp)}});
  ASSERT_EQ(results.size(), 3u);
  const bool cuda = machineHasCuda();
  for (const MeasureResult& result : results) {
    if (cuda) {
      ASSERT_TRUE(result.ok()) << result.error << ": " << result.errorDetail;
      EXPECT_EQ(result.costs.size(), 2u);
      EXPECT_GT(result.meanCost(), 0.0);
    } else {
      EXPECT_EQ(result.error, errors::kRuntime);
      EXPECT_EQ(result.errorDetail.rfind("CUDA is unavailable", 0), 0u) << result.errorDetail;
    }
  }
  // The worker survives a machine without CUDA: one process served every candidate.
  if (!cuda) {
    EXPECT_EQ(measurer.runner().workerStarts(), 1);
  }
}

TEST(GpuMeasureTest, ColdWeightTimingIsForCpuTargets) {
  MeasureOptions options{.runner = quickRunnerOptions(), .gpu = h200()};
  options.runner.timing.coldWeights = true;
  EXPECT_THROW(Measurer(host(), options), Error);
  options.gpu.reset();
  EXPECT_NO_THROW(Measurer(host(), options));
}

TEST(GpuMeasureTest, SamplingForAGpuDrawsGpuSchedules) {
  const graph::Task matmul = matmulTask(64, 48, 40);
  const search::SampleOptions options{.gpu = search::GpuSampleOptions{.maxThreadsPerBlock = 256}};
  const auto sampled = search::sample(matmul, 4, 7, options);
  EXPECT_EQ(sampled, search::sampleGpu(te::lowerTask(matmul), 4, 7, *options.gpu));
  ASSERT_FALSE(sampled.empty());
  for (const auto& steps : sampled) {
    const BuildResult built = buildCandidate({matmul, steps}, h200());
    EXPECT_TRUE(built.ok()) << built.errorDetail;
  }
}

} // namespace
