// Builds in child processes (measure/IsolatedBuild.h): the same objects as builds on threads,
// each in its input's place whatever order the builds ran in, a build over its time limit killed
// and recorded as compile_timeout, and the build result's trip through the socket pair (a
// bidirectional pipe).
#include "MeasureTestSupport.h"
#include "measure/Builder.h"
#include "measure/Measurer.h"
#include "measure/WorkerProtocol.h"
#include "support/Error.h"

#include <gtest/gtest.h>

using namespace clustune;
using namespace clustune::measure;
using namespace clustune::measure::testing;

namespace {

// Unroll pragmas on two of them, so that the builds start out of input order (buildOrder).
std::vector<MeasureInput> someCandidates() {
  std::vector<MeasureInput> inputs;
  for (std::int64_t size : {8, 16, 24, 32, 40}) {
    const graph::Task task = matmulTask(size, size, 8);
    inputs.push_back({task, defaultSteps(task)});
  }
  inputs[2].steps.push_back(
      schedule::PragmaStep{.stage = 0, .iterator = 0, .autoUnrollMaxStep = 16});
  inputs[4].steps.push_back(
      schedule::PragmaStep{.stage = 0, .iterator = 0, .autoUnrollMaxStep = 64});
  inputs.push_back({inputs[0].task, {schedule::ComputeInlineStep{.stage = 0}}}); // an output
  return inputs;
}

TEST(IsolatedBuild, BuildsStartWithTheLargestUnrollPragma) {
  EXPECT_EQ(buildOrder(someCandidates()), (std::vector<std::size_t>{4, 2, 0, 1, 3, 5}));
  EXPECT_TRUE(buildOrder({}).empty());
}

TEST(IsolatedBuild, ChildProcessBuildsEqualBuildsOnThreads) {
  const std::vector<MeasureInput> inputs = someCandidates();
  const std::vector<BuildResult> onThreads = build(inputs, host(), 2);
  const std::vector<BuildResult> inChildren = build(inputs, host(), 2, /*timeoutSeconds=*/120);
  ASSERT_EQ(inChildren.size(), inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    EXPECT_EQ(inChildren[i].error, onThreads[i].error) << i;
    EXPECT_EQ(inChildren[i].errorDetail, onThreads[i].errorDetail) << i;
    EXPECT_EQ(inChildren[i].objectBytes, onThreads[i].objectBytes) << i;
    EXPECT_EQ(inChildren[i].functionName, onThreads[i].functionName) << i;
    EXPECT_EQ(inChildren[i].arguments, onThreads[i].arguments) << i;
    EXPECT_GT(inChildren[i].compileSeconds, 0.0) << i;
    EXPECT_EQ(inChildren[i].objectBytes, buildCandidate(inputs[i], host()).objectBytes) << i;
  }
  EXPECT_TRUE(inChildren[0].ok());
  EXPECT_TRUE(inChildren[4].ok()) << inChildren[4].errorDetail;
  EXPECT_EQ(inChildren.back().error, errors::kInvalidSchedule);
}

// No LLVM compile of a 128 x 128 x 128 matmul takes a millisecond, so every build passes the
// limit; the limit applies to each candidate, and the run goes on to the next.
TEST(IsolatedBuild, ABuildOverTheLimitIsKilledAndRecordedAsACompileTimeout) {
  const graph::Task task = matmulTask(128, 128, 128);
  const std::vector<MeasureInput> inputs(3, MeasureInput{task, defaultSteps(task)});
  const std::vector<BuildResult> results = build(inputs, host(), 2, /*timeoutSeconds=*/0.001);
  ASSERT_EQ(results.size(), 3u);
  for (const BuildResult& result : results) {
    EXPECT_EQ(result.error, errors::kCompileTimeout);
    EXPECT_NE(result.errorDetail.find("0.001 s"), std::string::npos) << result.errorDetail;
    EXPECT_TRUE(result.objectBytes.empty());
    EXPECT_GE(result.compileSeconds, 0.001);
  }
  // The same candidates within a generous limit build.
  const std::vector<BuildResult> again = build(inputs, host(), 2, /*timeoutSeconds=*/120);
  for (const BuildResult& result : again)
    EXPECT_TRUE(result.ok()) << result.error << ": " << result.errorDetail;
}

TEST(IsolatedBuild, TheMeasurerRecordsACompileTimeoutAndMeasuresTheRest) {
  const graph::Task big = matmulTask(128, 128, 128);
  const graph::Task small = matmulTask(8, 8, 8);
  MeasureOptions options{.runner = quickRunnerOptions(), .buildParallelism = 2};
  options.buildTimeoutSeconds = 0.001;
  Measurer measurer(host(), options);
  const std::vector<MeasureResult> results = measurer.measure({{big, defaultSteps(big)}});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].error, errors::kCompileTimeout);
  EXPECT_TRUE(results[0].costs.empty());

  options.buildTimeoutSeconds = 120;
  Measurer patient(host(), options);
  const std::vector<MeasureResult> measured =
      patient.measure({{small, defaultSteps(small)}, {big, defaultSteps(big)}});
  for (const MeasureResult& result : measured)
    EXPECT_TRUE(result.ok()) << result.error << ": " << result.errorDetail;
}

TEST(IsolatedBuild, ABuildResultSurvivesTheTripThroughThePipe) {
  const graph::Task task = matmulTask(16, 16, 8);
  const BuildResult built = buildCandidate({task, defaultSteps(task)}, host());
  ASSERT_TRUE(built.ok()) << built.errorDetail;
  const BuildResult decoded = decodeBuildResult(encode(built));
  EXPECT_EQ(decoded.objectBytes, built.objectBytes);
  EXPECT_EQ(decoded.functionName, built.functionName);
  EXPECT_EQ(decoded.arguments, built.arguments);
  EXPECT_EQ(decoded.error, built.error);
  EXPECT_EQ(decoded.compileSeconds, built.compileSeconds);

  const BuildResult invalid{.error = errors::kInvalidSchedule, .errorDetail = "split: no such"};
  EXPECT_EQ(decodeBuildResult(encode(invalid)).errorDetail, "split: no such");

  const std::string bytes = encode(built);
  EXPECT_THROW(decodeBuildResult(bytes.substr(0, bytes.size() / 2)), Error);
  EXPECT_THROW(decodeBuildResult(encode(RunResponse{})), Error);
}

} // namespace
