// Measurement end to end (measure/Measurer.h with the Builder and the real worker) on real
// tasks built by hand: default schedules measure with positive costs and pass the check; bad
// steps, unlowerable tasks and wrong kernels become the documented error kinds.
#include "MeasureTestSupport.h"
#include "measure/Builder.h"
#include "measure/Measurer.h"

#include <gtest/gtest.h>

using namespace clustune;
using namespace clustune::measure;
using namespace clustune::measure::testing;

namespace {

MeasureOptions quickOptions() {
  return MeasureOptions{.runner = quickRunnerOptions(), .buildParallelism = 2};
}

void expectMeasured(const MeasureResult& result) {
  ASSERT_TRUE(result.ok()) << result.error << ": " << result.errorDetail;
  ASSERT_EQ(result.costs.size(), 2u);
  for (double cost : result.costs)
    EXPECT_GT(cost, 0.0);
  EXPECT_GT(result.meanCost(), 0.0);
}

TEST(MeasureTest, DefaultSchedulesMeasureAndPassTheCheck) {
  const graph::Task matmul = matmulTask(32, 48, 40);
  const graph::Task addRelu = addReluTask(16, 64);
  const graph::Task erf = unaryTask("Erf", {4, 100});
  const graph::Task exp = unaryTask("Exp", {3, 7});
  // The naive matmul below can run over the slow factor times the default's screening run and
  // would then be timed once; this test wants every candidate fully timed.
  MeasureOptions options = quickOptions();
  options.slowCandidateFactor = 0;
  Measurer measurer(host(), options);
  const std::vector<MeasureResult> results =
      measurer.measure({{matmul, defaultSteps(matmul)},
                        {addRelu, defaultSteps(addRelu)},
                        {erf, defaultSteps(erf)},
                        {exp, defaultSteps(exp)},
                        {matmul, {}}}); // no steps: the naive loop nest, also correct
  ASSERT_EQ(results.size(), 5u);
  for (const MeasureResult& result : results) {
    expectMeasured(result);
    EXPECT_GT(result.compileSeconds, 0.0);
  }
}

TEST(MeasureTest, AStepThatDoesNotApplyIsAnInvalidSchedule) {
  const graph::Task matmul = matmulTask(8, 8, 8);
  std::vector<schedule::Step> steps = defaultSteps(matmul);
  steps.push_back(schedule::SplitStep{.stage = 0, .iterator = 17, .factors = {2}});
  Measurer measurer(host(), quickOptions());
  const std::vector<MeasureResult> results =
      measurer.measure({{matmul, steps}, {matmul, defaultSteps(matmul)}});
  EXPECT_EQ(results[0].error, errors::kInvalidSchedule);
  EXPECT_NE(results[0].errorDetail.find("split"), std::string::npos) << results[0].errorDetail;
  EXPECT_TRUE(results[0].costs.empty());
  expectMeasured(results[1]);
}

TEST(MeasureTest, ATaskWithoutLoweringIsACompileError) {
  graph::Task task = addReluTask(4, 4);
  task.nodes[1].op = "NoSuchOperator";
  const BuildResult built = buildCandidate({task, {}}, host());
  EXPECT_EQ(built.error, errors::kCompile);
  EXPECT_NE(built.errorDetail.find("NoSuchOperator"), std::string::npos) << built.errorDetail;
  EXPECT_TRUE(built.objectBytes.empty());
}

TEST(MeasureTest, ParallelBuildsEqualSerialBuilds) {
  std::vector<MeasureInput> inputs;
  for (std::int64_t size : {8, 16, 24, 32, 40}) {
    const graph::Task task = matmulTask(size, size, 8);
    inputs.push_back({task, defaultSteps(task)});
  }
  inputs.push_back({inputs[0].task, {schedule::ComputeInlineStep{.stage = 0}}}); // an output
  const std::vector<BuildResult> serial = build(inputs, host(), 1);
  const std::vector<BuildResult> parallel = build(inputs, host(), 3);
  ASSERT_EQ(parallel.size(), inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    EXPECT_EQ(parallel[i].error, serial[i].error) << i;
    EXPECT_EQ(parallel[i].objectBytes, serial[i].objectBytes) << i;
    EXPECT_EQ(parallel[i].functionName, serial[i].functionName) << i;
    EXPECT_EQ(parallel[i].arguments, serial[i].arguments) << i;
  }
  EXPECT_TRUE(serial[0].ok());
  EXPECT_EQ(serial.back().error, errors::kInvalidSchedule);
}

// A schedule cannot change what is computed, so a wrong kernel is written by hand and goes
// through the same checking path as built candidates.
BuildResult handBuilt(const graph::Task& task, const te::LoweredFunction& function) {
  return BuildResult{.objectBytes = codegen::compileToObject(function, host()),
                     .functionName = function.name,
                     .arguments = argumentSpecs(task, te::lowerTask(task))};
}

TEST(MeasureTest, AKernelThatComputesSomethingElseIsAWrongResult) {
  const graph::Task task = addReluTask(8, 32);
  Measurer measurer(host(), quickOptions());
  const MeasureResult right =
      measurer.measureBuilt(task, handBuilt(task, handWrittenAddRelu(256, 0)));
  expectMeasured(right);
  const MeasureResult wrong =
      measurer.measureBuilt(task, handBuilt(task, handWrittenAddRelu(256, 0.01)));
  EXPECT_EQ(wrong.error, errors::kWrongResult);
  EXPECT_NE(wrong.errorDetail.find("elements differ"), std::string::npos) << wrong.errorDetail;
  EXPECT_TRUE(wrong.costs.empty());
}

TEST(MeasureTest, LargeTasksAreCheckedAgainstTheCompiledNaiveSchedule) {
  graph::Task matmul = matmulTask(32, 48, 40);
  graph::Task addRelu = addReluTask(8, 32);
  matmul.flops = addRelu.flops = 1000; // above the limit below: no interpreter reference
  MeasureOptions options = quickOptions();
  options.interpreterReferenceMaxFlops = 10;
  Measurer measurer(host(), options);
  expectMeasured(measurer.measure({{matmul, defaultSteps(matmul)}})[0]);
  expectMeasured(measurer.measureBuilt(addRelu, handBuilt(addRelu, handWrittenAddRelu(256, 0))));
  const MeasureResult wrong =
      measurer.measureBuilt(addRelu, handBuilt(addRelu, handWrittenAddRelu(256, 0.01)));
  EXPECT_EQ(wrong.error, errors::kWrongResult) << wrong.errorDetail;
}

TEST(MeasureTest, WithoutTheCheckAWrongKernelIsTimedAnyway) {
  const graph::Task task = addReluTask(8, 32);
  MeasureOptions options = quickOptions();
  options.checkCorrectness = false;
  Measurer measurer(host(), options);
  expectMeasured(measurer.measureBuilt(task, handBuilt(task, handWrittenAddRelu(256, 0.01))));
}

TEST(MeasureTest, AScreeningRunIsTheMeasurementOnlyForALongHopelessCandidate) {
  // 50 ms against a best of 1 ms, factor 3: hopeless, and long enough to be a measurement.
  EXPECT_TRUE(screeningRunIsTheMeasurement(0.050, 0.001, 3, 0.010));
  // Within the factor of the best: timed in full.
  EXPECT_FALSE(screeningRunIsTheMeasurement(0.050, 0.020, 3, 0.010));
  // Hopeless but shorter than kWarmUpIsAMeasurementSeconds: a first run of a short kernel is
  // no measurement.
  EXPECT_FALSE(screeningRunIsTheMeasurement(0.005, 0.0001, 3, 0));
  // Hopeless but shorter than a repeat must last.
  EXPECT_FALSE(screeningRunIsTheMeasurement(0.050, 0.001, 3, 0.100));
  // Factor 0 times every candidate in full.
  EXPECT_FALSE(screeningRunIsTheMeasurement(0.050, 0.001, 0, 0.010));
}

TEST(MeasureTest, TheScreeningRunChecksEveryCandidateOfTheBatch) {
  // With the default factor each candidate of a batch runs once, checked, before any is timed:
  // a wrong kernel and a crashing one are found there, and the others still get their costs
  // (every repeat, or one where their timed warm-up came out over the factor).
  const graph::Task task = addReluTask(8, 32);
  MeasureOptions options = quickOptions();
  ASSERT_GT(options.slowCandidateFactor, 0);
  Measurer measurer(host(), options);
  std::vector<MeasureInput> batch(4, {task, defaultSteps(task)});
  batch[1].fault = InjectedFault::WrongResult;
  batch[2].fault = InjectedFault::Crash;
  const std::vector<MeasureResult> results = measurer.measure(batch);
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[1].error, errors::kWrongResult) << results[1].errorDetail;
  EXPECT_EQ(results[2].error, errors::kCrash) << results[2].errorDetail;
  for (const std::size_t i : {0u, 3u}) {
    ASSERT_TRUE(results[i].ok()) << results[i].error << ": " << results[i].errorDetail;
    ASSERT_FALSE(results[i].costs.empty());
    EXPECT_LE(results[i].costs.size(), 2u);
    EXPECT_GT(results[i].meanCost(), 0.0);
  }
}

TEST(MeasureTest, ACrashIsRecordedAndTheBatchGoesOn) {
  const graph::Task task = addReluTask(8, 32);
  Measurer measurer(host(), quickOptions());
  const te::LoweredFunction fault = outOfBoundsStore();
  const BuildResult crashing{.objectBytes = codegen::compileToObject(fault, host()),
                             .functionName = fault.name,
                             .arguments = argumentSpecs(task, te::lowerTask(task))};
  const MeasureResult crashed = measurer.measureBuilt(task, crashing);
  EXPECT_EQ(crashed.error, errors::kCrash);
  expectMeasured(measurer.measure({{task, defaultSteps(task)}})[0]);
}

} // namespace
