// The regression gate: a slowdown counts beyond both the threshold and the rows' spread.
#include "bench/RegressionGate.h"
#include "support/Error.h"

#include <gtest/gtest.h>

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
