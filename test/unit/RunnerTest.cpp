// The Runner (measure/Runner.h) against the real clustune-worker process: kernels that work,
// fault, never finish or cannot be loaded, sent through runObject. Every failure must become a
// result while the test process carries on, and the next candidate must measure again.
#include "measure/Runner.h"

#include "MeasureTestSupport.h"
#include "measure/MeasureInput.h"
#include "support/Error.h"

#include <chrono>
#include <gtest/gtest.h>

using namespace clustune;
using namespace clustune::measure;
using namespace clustune::measure::testing;

namespace {

RunOutcome runFunction(Runner& runner, const te::LoweredFunction& function,
                       const std::vector<ArgumentSpec>& arguments, bool returnOutputs = true) {
  return runner.runObject(codegen::compileToObject(function, host()), function.name, arguments,
                          returnOutputs);
}

void expectIotaWorks(Runner& runner) {
  const RunOutcome outcome = runFunction(runner, iota(64), singleOutput(64));
  ASSERT_TRUE(outcome.ok()) << outcome.error << ": " << outcome.errorDetail;
  ASSERT_EQ(outcome.costs.size(), 2u);
  for (double cost : outcome.costs)
    EXPECT_GT(cost, 0.0);
  ASSERT_EQ(outcome.outputs.size(), 1u);
  for (std::int64_t i = 0; i < 64; ++i)
    ASSERT_EQ(outcome.outputs[0].get(i), static_cast<double>(i));
}

TEST(RunnerTest, RunsAKernelAndReturnsItsOutputs) {
  Runner runner(quickRunnerOptions());
  expectIotaWorks(runner);
  // The worker is persistent: a second candidate reuses it.
  expectIotaWorks(runner);
  EXPECT_EQ(runner.workerStarts(), 1);
}

TEST(RunnerTest, OutputsAreOnlySentWhenAsked) {
  Runner runner(quickRunnerOptions());
  const RunOutcome outcome = runFunction(runner, iota(8), singleOutput(8), false);
  ASSERT_TRUE(outcome.ok()) << outcome.errorDetail;
  EXPECT_TRUE(outcome.outputs.empty());
  EXPECT_EQ(outcome.costs.size(), 2u);
}

TEST(RunnerTest, AFaultingKernelIsACrashAndTheNextCandidateStillMeasures) {
  Runner runner(quickRunnerOptions());
  expectIotaWorks(runner);
  const pid_t firstWorker = runner.workerPid();
  const RunOutcome crashed = runFunction(runner, outOfBoundsStore(), singleOutput(16));
  EXPECT_EQ(crashed.error, errors::kCrash);
  EXPECT_NE(crashed.errorDetail.find("SIGSEGV"), std::string::npos) << crashed.errorDetail;
  EXPECT_TRUE(crashed.costs.empty());
  EXPECT_EQ(runner.workerPid(), -1);
  expectIotaWorks(runner);
  EXPECT_EQ(runner.workerStarts(), 2);
  EXPECT_NE(runner.workerPid(), firstWorker);
}

TEST(RunnerTest, AKernelThatNeverFinishesTimesOutAndTheWorkerRestarts) {
  Runner runner(quickRunnerOptions(/*timeoutSeconds=*/1));
  const auto start = std::chrono::steady_clock::now();
  const RunOutcome hung = runFunction(runner, endlessLoop(), singleOutput(16));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(hung.error, errors::kTimeout);
  EXPECT_NE(hung.errorDetail.find("1 s"), std::string::npos) << hung.errorDetail;
  EXPECT_GE(seconds, 1.0);
  EXPECT_LT(seconds, 5.0);
  EXPECT_EQ(runner.workerPid(), -1);
  expectIotaWorks(runner);
  EXPECT_EQ(runner.workerStarts(), 2);
}

TEST(RunnerTest, AnObjectWithoutTheKernelIsARuntimeErrorAndKeepsTheWorker) {
  Runner runner(quickRunnerOptions());
  const te::LoweredFunction function = iota(8);
  const RunOutcome outcome = runner.runObject(codegen::compileToObject(function, host()),
                                              "no_such_kernel", singleOutput(8), true);
  EXPECT_EQ(outcome.error, errors::kRuntime);
  EXPECT_NE(outcome.errorDetail.find("no_such_kernel"), std::string::npos) << outcome.errorDetail;
  const RunOutcome garbage = runner.runObject("not an object", "iota", singleOutput(8), true);
  EXPECT_EQ(garbage.error, errors::kRuntime);
  expectIotaWorks(runner);
  EXPECT_EQ(runner.workerStarts(), 1);
}

TEST(RunnerTest, AMissingWorkerExecutableIsAUserError) {
  RunnerOptions options = quickRunnerOptions();
  options.workerPath = "/nonexistent/clustune-worker";
  Runner runner(options);
  try {
    runFunction(runner, iota(8), singleOutput(8));
    FAIL() << "expected an Error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("/nonexistent/clustune-worker"), std::string::npos);
  }
}

TEST(RunnerTest, AWorkerThatIsNotAWorkerIsRefused) {
  RunnerOptions options = quickRunnerOptions();
  options.workerPath = "/bin/true";
  Runner runner(options);
  try {
    runFunction(runner, iota(8), singleOutput(8));
    FAIL() << "expected an Error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("did not start"), std::string::npos) << error.what();
  }
}

TEST(RunnerTest, RejectsANonPositiveTimeout) {
  EXPECT_THROW(Runner(quickRunnerOptions(0)), Error);
}

} // namespace
