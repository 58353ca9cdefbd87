// Friction metrics and ranking reversals over hand-made rows whose figures are known.
#include "bench/Friction.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace clustune::bench;

namespace {

BenchRow row(const std::string& model, std::int64_t batch, const std::string& compiler,
             double milliseconds) {
  return BenchRow{.model = model,
                  .batch = batch,
                  .compiler = compiler,
                  .medianSeconds = milliseconds * 1e-3,
                  .p90Seconds = milliseconds * 1e-3};
}

const CurvePoint& point(const FrictionReport& report, const std::string& model,
                        const std::string& compiler, std::int64_t batch) {
  for (const auto& p : report.curves)
    if (p.model == model && p.compiler == compiler && p.batch == batch)
      return p;
  throw std::runtime_error("no such point");
}

} // namespace

TEST(BenchFriction, CurvesAreRelativeToTheSmallestBatch) {
  // default: latency doubles with the batch (per sample constant); ort: batch 4 costs 2x batch 1.
  const std::vector<BenchRow> rows = {row("m", 1, "default", 10), row("m", 2, "default", 20),
                                      row("m", 4, "default", 40), row("m", 1, "ort", 10),
                                      row("m", 2, "ort", 15),     row("m", 4, "ort", 20)};
  const FrictionReport report = computeFriction(rows);
  EXPECT_EQ(report.referenceBatch, 1);
  EXPECT_DOUBLE_EQ(point(report, "m", "default", 4).relativePerSample, 1.0);
  EXPECT_DOUBLE_EQ(point(report, "m", "default", 4).efficiency, 0.25); // T(4) / (4 T(1))
  EXPECT_DOUBLE_EQ(point(report, "m", "ort", 4).relativePerSample, 0.5);
  EXPECT_DOUBLE_EQ(point(report, "m", "ort", 4).efficiency, 0.5);
  ASSERT_EQ(report.compilers.size(), 2u);
  EXPECT_DOUBLE_EQ(report.compilers[0].coefficient, 0.0); // log2 1, log2 1
  EXPECT_EQ(report.compilers[0].points, 2);
  // ort: log2(0.75) and log2(0.5), averaged.
  EXPECT_NEAR(report.compilers[1].coefficient, (std::log2(0.75) - 1.0) / 2, 1e-12);
  EXPECT_NEAR(report.compilers[1].reductionVsDefault, (1.0 - std::log2(0.75)) / 2, 1e-12);
}

TEST(BenchFriction, RowsThatDidNotRunAreLeftOut) {
  std::vector<BenchRow> rows = {row("m", 2, "default", 10), row("m", 4, "default", 30),
                                row("m", 8, "default", 60)};
  rows[2].status = RowStatus::Failed;
  const FrictionReport report = computeFriction(rows);
  EXPECT_EQ(report.referenceBatch, 2);
  ASSERT_EQ(report.compilers.size(), 1u);
  EXPECT_EQ(report.compilers[0].points, 1);
  EXPECT_NEAR(report.compilers[0].coefficient, std::log2(1.5), 1e-12);
  EXPECT_TRUE(std::isnan(computeFriction({row("m", 1, "ort", 1), row("m", 2, "ort", 1)})
                             .compilers[0]
                             .reductionVsDefault));
}

TEST(BenchFriction, ARankingReversalIsReportedOncePerBatchAndPair) {
  // a is faster than b under default, slower under tuned, at batch 1 only.
  const std::vector<BenchRow> rows = {row("a", 1, "default", 5),  row("b", 1, "default", 8),
                                      row("a", 1, "tuned", 4),    row("b", 1, "tuned", 3),
                                      row("a", 2, "default", 10), row("b", 2, "default", 16),
                                      row("a", 2, "tuned", 6),    row("b", 2, "tuned", 7)};
  const FrictionReport report = computeFriction(rows);
  ASSERT_EQ(report.reversals.size(), 1u);
  EXPECT_EQ(report.reversals[0].batch, 1);
  EXPECT_EQ(report.reversals[0].modelA, "a");
  EXPECT_EQ(report.reversals[0].modelB, "b");
  EXPECT_EQ(report.reversals[0].compilerA, "default");
  EXPECT_EQ(report.reversals[0].compilerB, "tuned");
}
