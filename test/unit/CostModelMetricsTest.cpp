// Tenset's evaluation metrics (costmodel/Metrics.h) on small hand-computed examples: perfect and
// reversed predictors, score and cost ties, k beyond the task size, the network-level score with
// two weighted tasks, and the input errors a caller can make.
#include "costmodel/Metrics.h"
#include "support/Error.h"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <string>

using namespace clustune;
using namespace clustune::costmodel;

namespace {

// Costs 1, 2, 4, 5 s: labels 1, 0.5, 0.25, 0.2.
TaskPredictions fourPrograms(std::vector<double> scores) {
  return {.task = "t4", .costs = {1, 2, 4, 5}, .scores = std::move(scores)};
}

TaskPredictions perfectPredictor() {
  return fourPrograms({4, 3, 2, 1});
}
TaskPredictions reversedPredictor() {
  return fourPrograms({1, 2, 3, 4});
}

// Expects `call` to throw clustune::Error whose message contains `expected`.
template <typename Call>
void expectErrorContaining(Call call, const std::string& expected) {
  try {
    call();
    FAIL() << "no error; expected one containing '" << expected << "'";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find(expected), std::string::npos) << error.what();
  }
}

} // namespace

TEST(CostModelMetrics, LabelsAreFastestOverCost) {
  const std::vector<double> labels = taskLabels(fourPrograms({0, 0, 0, 0}));
  ASSERT_EQ(labels.size(), 4u);
  EXPECT_DOUBLE_EQ(labels[0], 1.0);
  EXPECT_DOUBLE_EQ(labels[1], 0.5);
  EXPECT_DOUBLE_EQ(labels[2], 0.25);
  EXPECT_DOUBLE_EQ(labels[3], 0.2);
}

TEST(CostModelMetrics, RootMeanSquaredErrorOverAllProgramsOfAllTasks) {
  // Task a: costs 1, 2 → labels 1, 0.5; scores 0.5, 0.5 → errors -0.5, 0.
  // Task b: cost 3 → label 1; score 2 → error 1.
  // RMSE = sqrt((0.25 + 0 + 1) / 3).
  const std::vector<TaskPredictions> tasks = {{.task = "a", .costs = {1, 2}, .scores = {0.5, 0.5}},
                                              {.task = "b", .costs = {3}, .scores = {2}}};
  EXPECT_DOUBLE_EQ(rootMeanSquaredError(tasks), std::sqrt(1.25 / 3));
}

TEST(CostModelMetrics, RootMeanSquaredErrorOfLabelsIsZero) {
  EXPECT_DOUBLE_EQ(rootMeanSquaredError({fourPrograms({1, 0.5, 0.25, 0.2})}), 0.0);
}

TEST(CostModelMetrics, CoefficientOfDeterminationOfLabelsAsScoresIsOne) {
  const std::vector<TaskPredictions> tasks = {fourPrograms({1, 0.5, 0.25, 0.2}),
                                              {.task = "b", .costs = {2, 8}, .scores = {1, 0.25}}};
  EXPECT_DOUBLE_EQ(coefficientOfDetermination(tasks), 1.0);
}

TEST(CostModelMetrics, CoefficientOfDeterminationByHand) {
  // Labels 1, 0.5 (mean 0.75, SStot = 0.125); scores 0.5, 0.5 → SSres = 0.25; R² = 1 - 2 = -1.
  const std::vector<TaskPredictions> tasks = {{.task = "a", .costs = {1, 2}, .scores = {0.5, 0.5}}};
  EXPECT_DOUBLE_EQ(coefficientOfDetermination(tasks), -1.0);
}

TEST(CostModelMetrics, CoefficientOfDeterminationIsZeroWhenAllLabelsAreEqual) {
  // One program per task: every label is 1, SStot = 0.
  const std::vector<TaskPredictions> tasks = {{.task = "a", .costs = {1}, .scores = {1}},
                                              {.task = "b", .costs = {5}, .scores = {0.3}}};
  EXPECT_EQ(coefficientOfDetermination(tasks), 0.0);
}

TEST(CostModelMetrics, PairwiseAccuracyOfPerfectPredictorIsOne) {
  EXPECT_DOUBLE_EQ(pairwiseAccuracy({perfectPredictor()}), 1.0);
}

TEST(CostModelMetrics, PairwiseAccuracyOfReversedPredictorIsZero) {
  EXPECT_DOUBLE_EQ(pairwiseAccuracy({reversedPredictor()}), 0.0);
}

TEST(CostModelMetrics, PairwiseAccuracyCountsScoreTiesAsHalfAndSkipsCostTies) {
  // Costs 1, 2, 2 (labels 1, 0.5, 0.5), scores 3, 3, 1. Pairs with different labels: (0,1) score
  // tie → 0.5; (0,2) right → 1. The pair (1,2) has equal labels and is not counted: 1.5 / 2.
  const TaskPredictions task = {.task = "ties", .costs = {1, 2, 2}, .scores = {3, 3, 1}};
  EXPECT_DOUBLE_EQ(pairwiseAccuracy({task}), 0.75);
}

TEST(CostModelMetrics, PairwiseAccuracyIsAnUnweightedMeanOverTasksWithTwoPrograms) {
  // Perfect (1.0) and reversed (0.0) four-program tasks, a single-program task and a task whose
  // costs are all equal: the last two have no pair to order, so the mean is (1 + 0) / 2.
  const std::vector<TaskPredictions> tasks = {perfectPredictor(),
                                              reversedPredictor(),
                                              {.task = "one", .costs = {1}, .scores = {0}},
                                              {.task = "flat", .costs = {2, 2}, .scores = {0, 1}}};
  EXPECT_DOUBLE_EQ(pairwiseAccuracy(tasks), 0.5);
}

TEST(CostModelMetrics, PeakScoreOfPerfectPredictorIsOne) {
  EXPECT_DOUBLE_EQ(peakScore({perfectPredictor()}, 1), 1.0);
  EXPECT_DOUBLE_EQ(peakScore({perfectPredictor()}, 3), 1.0);
}

TEST(CostModelMetrics, PeakScoreAveragesTheRunningMaxOverPositions) {
  // Scores rank the programs 2, 1, 0, 3 → labels 0.25, 0.5, 1, 0.2; running max 0.25, 0.5, 1, 1.
  const TaskPredictions task = fourPrograms({2, 3, 4, 1});
  EXPECT_DOUBLE_EQ(peakScore({task}, 1), 0.25);
  EXPECT_DOUBLE_EQ(peakScore({task}, 2), (0.25 + 0.5) / 2);
  EXPECT_DOUBLE_EQ(peakScore({task}, 3), (0.25 + 0.5 + 1) / 3);
}

TEST(CostModelMetrics, PeakScoreRepeatsTheLastValuePastTheTaskSize) {
  // Reversed: labels in pick order 0.2, 0.25, 0.5, 1; k = 6 repeats 1 at positions 5 and 6.
  EXPECT_DOUBLE_EQ(peakScore({reversedPredictor()}, 6), (0.2 + 0.25 + 0.5 + 1 + 1 + 1) / 6);
}

TEST(CostModelMetrics, PeakScoreBreaksScoreTiesByIndex) {
  // All scores equal: the picks go in index order 0, 1, 2, 3, so the fastest comes first.
  EXPECT_DOUBLE_EQ(peakScore({fourPrograms({7, 7, 7, 7})}, 1), 1.0);
  // Program 3 (label 0.2) ties with program 0 (label 1) on score 5 but comes after it.
  EXPECT_DOUBLE_EQ(peakScore({fourPrograms({5, 1, 1, 5})}, 1), 1.0);
  EXPECT_DOUBLE_EQ(peakScore({fourPrograms({1, 1, 1, 5})}, 2), (0.2 + 1) / 2);
}

TEST(CostModelMetrics, PeakScoreAveragesOverTasksWithTwoPrograms) {
  // Perfect: 1; reversed at k = 1: 0.2; the single-program task is left out.
  const std::vector<TaskPredictions> tasks = {
      perfectPredictor(), reversedPredictor(), {.task = "one", .costs = {1}, .scores = {0}}};
  EXPECT_DOUBLE_EQ(peakScore(tasks, 1), 0.6);
}

TEST(CostModelMetrics, TopKRecallOfPerfectPredictorIsOne) {
  EXPECT_DOUBLE_EQ(topKRecall({perfectPredictor()}, 1), 1.0);
  EXPECT_DOUBLE_EQ(topKRecall({perfectPredictor()}, 2), 1.0);
}

TEST(CostModelMetrics, TopKRecallByHand) {
  // True top-2 {0, 1}; predicted by scores 2, 3, 4, 1 → {2, 1}; one in common.
  EXPECT_DOUBLE_EQ(topKRecall({fourPrograms({2, 3, 4, 1})}, 2), 0.5);
  // Reversed: predicted top-2 {3, 2}, none in common.
  EXPECT_DOUBLE_EQ(topKRecall({reversedPredictor()}, 2), 0.0);
}

TEST(CostModelMetrics, TopKRecallDividesByTheTaskSizeWhenKExceedsIt) {
  // k = 10 > n = 4: both top sets are all four programs, recall 4 / 4.
  EXPECT_DOUBLE_EQ(topKRecall({reversedPredictor()}, 10), 1.0);
}

TEST(CostModelMetrics, TopKRecallBreaksCostAndScoreTiesByIndex) {
  // Costs 1, 1, 3: true top-1 is program 0. Scores 0, 0, 0: predicted top-1 is program 0 too.
  EXPECT_DOUBLE_EQ(topKRecall({{.task = "t", .costs = {1, 1, 3}, .scores = {0, 0, 0}}}, 1), 1.0);
  // Scores 0, 1, 1: predicted top-1 is program 1, which ties program 0 on cost but loses on index.
  EXPECT_DOUBLE_EQ(topKRecall({{.task = "t", .costs = {1, 1, 3}, .scores = {0, 1, 1}}}, 1), 0.0);
}

TEST(CostModelMetrics, NetworkTopKScoreWithTwoWeightedTasks) {
  // Task a (weight 2): best 1; scores pick program 1 (cost 2) first, then program 0 (cost 1).
  // Task b (weight 1): best 3; scores pick program 1 (cost 3) first.
  const TaskPredictions a = {.task = "a", .costs = {1, 2, 4}, .scores = {2, 3, 1}};
  const TaskPredictions b = {.task = "b", .costs = {6, 3}, .scores = {0, 1}};
  const std::vector<WeightedTask> network = {{&a, 2.0}, {&b, 1.0}};
  // k = 1: (2·1 + 1·3) / (2·2 + 1·3) = 5 / 7.
  EXPECT_DOUBLE_EQ(networkTopKScore(network, 1), 5.0 / 7.0);
  // k = 2: a's picks include program 0, so both tasks reach their best: 5 / 5.
  EXPECT_DOUBLE_EQ(networkTopKScore(network, 2), 1.0);
  // k beyond every task's size behaves like k = n.
  EXPECT_DOUBLE_EQ(networkTopKScore(network, 50), 1.0);
}

TEST(CostModelMetrics, SummaryHoldsEveryMetricAndItsJson) {
  const std::vector<TaskPredictions> tasks = {perfectPredictor(), reversedPredictor()};
  const MetricSummary summary = summarise(tasks);
  EXPECT_DOUBLE_EQ(summary.pairwiseAccuracy, 0.5);
  EXPECT_DOUBLE_EQ(summary.peakScore1, (1 + 0.2) / 2);
  // Perfect: 1 at every position. Reversed at k = 5: 0.2, 0.25, 0.5, 1, 1.
  EXPECT_DOUBLE_EQ(summary.peakScore5, (1 + (0.2 + 0.25 + 0.5 + 1 + 1) / 5) / 2);
  EXPECT_EQ(summary.topKRecallK, 10);
  EXPECT_DOUBLE_EQ(summary.topKRecall, 1.0); // k = 10 covers both four-program tasks
  EXPECT_DOUBLE_EQ(summary.rmse, rootMeanSquaredError(tasks));
  EXPECT_DOUBLE_EQ(summary.r2, coefficientOfDetermination(tasks));
  EXPECT_EQ(summary.tasks, 2u);
  EXPECT_EQ(summary.programs, 8u);

  const nlohmann::ordered_json json = metricSummaryToJson(summary);
  EXPECT_EQ(json.dump(), nlohmann::ordered_json({{"rmse", summary.rmse},
                                                 {"r2", summary.r2},
                                                 {"pairwise_accuracy", 0.5},
                                                 {"peak_score_1", summary.peakScore1},
                                                 {"peak_score_5", summary.peakScore5},
                                                 {"top_k_recall", 1.0},
                                                 {"top_k_recall_k", 10},
                                                 {"tasks", 2},
                                                 {"programs", 8}})
                             .dump());
}

TEST(CostModelMetrics, EmptyInputIsAnError) {
  expectErrorContaining([] { rootMeanSquaredError({}); }, "no tasks to evaluate");
  expectErrorContaining([] { coefficientOfDetermination({}); }, "no tasks to evaluate");
  expectErrorContaining([] { pairwiseAccuracy({}); }, "no tasks to evaluate");
  expectErrorContaining([] { peakScore({}, 1); }, "no tasks to evaluate");
  expectErrorContaining([] { topKRecall({}, 1); }, "no tasks to evaluate");
  expectErrorContaining([] { networkTopKScore({}, 1); }, "no tasks to evaluate");
  expectErrorContaining([] { summarise({}); }, "no tasks to evaluate");
}

TEST(CostModelMetrics, BadProgramsAreErrorsNamingTheTask) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  expectErrorContaining(
      [] {
        rootMeanSquaredError({{.task = "len", .costs = {1, 2}, .scores = {1}}});
      },
      "task len: 2 costs but 1 scores");
  expectErrorContaining(
      [] {
        pairwiseAccuracy({{.task = "zero", .costs = {1, 0}, .scores = {1, 2}}});
      },
      "task zero: cost of program 1");
  expectErrorContaining(
      [] {
        peakScore({{.task = "neg", .costs = {-1, 1}, .scores = {1, 2}}}, 1);
      },
      "task neg: cost of program 0");
  expectErrorContaining(
      [&] {
        topKRecall({{.task = "infcost", .costs = {1, inf}, .scores = {1, 2}}}, 1);
      },
      "task infcost: cost of program 1");
  expectErrorContaining(
      [&] {
        coefficientOfDetermination({{.task = "nan", .costs = {1, 2}, .scores = {nan, 2}}});
      },
      "task nan: score of program 0 is not finite");
  expectErrorContaining([] { taskLabels({.task = "empty", .costs = {}, .scores = {}}); },
                        "task empty: no programs");
}

TEST(CostModelMetrics, KBelowOneIsAnError) {
  const TaskPredictions task = perfectPredictor();
  expectErrorContaining([&] { peakScore({task}, 0); }, "k must be at least 1");
  expectErrorContaining([&] { topKRecall({task}, -3); }, "k must be at least 1");
  expectErrorContaining([&] { networkTopKScore({{&task, 1.0}}, 0); }, "k must be at least 1");
}

TEST(CostModelMetrics, NetworkWeightsMustBePositive) {
  const TaskPredictions task = perfectPredictor();
  expectErrorContaining([&] { networkTopKScore({{&task, 0.0}}, 1); }, "task t4: weight");
  expectErrorContaining([&] { networkTopKScore({{&task, -1.0}}, 1); }, "task t4: weight");
}

TEST(CostModelMetrics, RankingMetricsNeedATaskWithTwoPrograms) {
  const std::vector<TaskPredictions> single = {{.task = "one", .costs = {1}, .scores = {0}}};
  expectErrorContaining([&] { peakScore(single, 1); }, "at least two programs");
  expectErrorContaining([&] { topKRecall(single, 1); }, "at least two programs");
  expectErrorContaining([&] { pairwiseAccuracy(single); }, "different costs");
  expectErrorContaining(
      [] {
        pairwiseAccuracy({{.task = "flat", .costs = {2, 2}, .scores = {0, 1}}});
      },
      "different costs");
}
