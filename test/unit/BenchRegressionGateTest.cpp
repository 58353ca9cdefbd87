// The regression gate: a slowdown counts beyond both the threshold and the rows' spread.
#include "bench/RegressionGate.h"
#include "support/Error.h"

#include <gtest/gtest.h>
#include <map>

using namespace clustune;
using namespace clustune::bench;

namespace {

BenchRow row(const std::string& model, double median, double p90,
             const std::string& cpu = "cpu A") {
  return BenchRow{.model = model,
                  .batch = 1,
                  .compiler = "default",
                  .medianSeconds = median,
                  .p90Seconds = p90,
                  .cpu = cpu};
}

} // namespace

TEST(BenchRegressionGate, ASlowdownMustPassTheThresholdAndTheNoise) {
  const std::vector<BenchRow> baseline = {row("quiet", 1.0, 1.01), row("noisy", 1.0, 1.2),
                                          row("same", 1.0, 1.01)};
  const std::vector<BenchRow> current = {row("quiet", 1.10, 1.11), row("noisy", 1.10, 1.12),
                                         row("same", 1.02, 1.03), row("new", 1.0, 1.0)};
  const GateResult result = applyGate(current, baseline, 0.05);
  EXPECT_EQ(result.compared, 3);
  EXPECT_EQ(result.withoutBaseline, 1);
  ASSERT_EQ(result.regressions.size(), 1u);
  EXPECT_EQ(result.regressions[0].current.model, "quiet");
  EXPECT_NEAR(result.regressions[0].slowdown, 0.10, 1e-12);
  EXPECT_TRUE(applyGate(current, baseline, 0.15).regressions.empty());
}

TEST(BenchRegressionGate, AFailureIsARegressionButAMissingPeerIsNot) {
  const std::vector<BenchRow> baseline = {row("a", 1.0, 1.0), row("b", 1.0, 1.0)};
  std::vector<BenchRow> current = {row("a", 1.0, 1.0), row("b", 1.0, 1.0)};
  current[0].status = RowStatus::Failed;
  current[1].status = RowStatus::Unavailable;
  const GateResult result = applyGate(current, baseline, 0.05);
  ASSERT_EQ(result.regressions.size(), 1u);
  EXPECT_EQ(result.regressions[0].current.model, "a");
}

TEST(BenchRegressionGate, CpusOfBothRunsAreCollected) {
  const GateResult result =
      applyGate({row("a", 1.0, 1.0, "cpu B")}, {row("a", 1.0, 1.0, "cpu A")}, 0.05);
  EXPECT_EQ(result.baselineCpus, std::vector<std::string>{"cpu A"});
  EXPECT_EQ(result.currentCpus, std::vector<std::string>{"cpu B"});
}

TEST(BenchRegressionGate, SlowdownsAreFractionsOrPercentages) {
  EXPECT_DOUBLE_EQ(parseSlowdown("5%"), 0.05);
  EXPECT_DOUBLE_EQ(parseSlowdown("5 %"), 0.05);
  EXPECT_DOUBLE_EQ(parseSlowdown("0.05"), 0.05);
  EXPECT_DOUBLE_EQ(parseSlowdown("0"), 0.0);
  for (const char* bad : {"", "%", "-5%", "five", "5%%"})
    EXPECT_THROW(parseSlowdown(bad), Error) << bad;
}

TEST(BenchRegressionGate, ARegressionStandsOnlyWhileEveryRunIsSlower) {
  const std::vector<BenchRow> baseline = {row("drift", 1.0, 1.01), row("slow", 1.0, 1.01),
                                          row("broken", 1.0, 1.01)};
  std::vector<BenchRow> current = {row("drift", 1.10, 1.11), row("slow", 1.20, 1.21),
                                   row("broken", 1.0, 1.0)};
  current[2].status = RowStatus::Failed;
  GateResult result = applyGate(current, baseline, 0.05);
  ASSERT_EQ(result.regressions.size(), 3u);

  // "drift" measures 1.08 (still slower), then 1.01 (within the threshold); "slow" stays slow.
  std::map<std::string, std::vector<double>> reruns = {{"drift", {1.08, 1.01}},
                                                       {"slow", {1.19, 1.22}}};
  std::vector<std::string> remeasured;
  const int cleared = confirmRegressions(result, 0.05, 2, [&](const BenchRow& slower) {
    remeasured.push_back(slower.model);
    std::vector<double>& medians = reruns.at(slower.model);
    const double median = medians.front();
    medians.erase(medians.begin());
    return row(slower.model, median, median * 1.01);
  });
  EXPECT_EQ(cleared, 1);
  EXPECT_EQ(remeasured, (std::vector<std::string>{"drift", "drift", "slow", "slow"}));
  ASSERT_EQ(result.regressions.size(), 2u);
  EXPECT_EQ(result.regressions[0].current.model, "slow");
  EXPECT_EQ(result.regressions[0].rerunMedianSeconds, (std::vector<double>{1.19, 1.22}));
  EXPECT_EQ(result.regressions[1].current.model, "broken"); // a failure is not re-run
}

TEST(BenchRegressionGate, RowsOnAnotherThreadCountAreCounted) {
  BenchRow two = row("a", 1.0, 1.0), one = row("a", 1.0, 1.0);
  two.threads = 2;
  one.threads = 1;
  EXPECT_EQ(applyGate({one}, {two}, 0.05).otherThreads, 1);
  EXPECT_EQ(applyGate({two}, {two}, 0.05).otherThreads, 0);
}
