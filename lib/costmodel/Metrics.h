// Tenset's cost-model evaluation metrics (DESIGN §6, REFERENCES.md "Tenset", docs/metrics.md):
// how well a model's predicted scores match the measured costs of held-out programs. Regression
// metrics (RMSE, R²) compare scores with the normalised-throughput labels of costmodel/Labels.h;
// ranking metrics (pairwise accuracy, peak score@k, top-k recall) judge each task's ordering and
// are averaged over tasks; the network-level top-k score weighs tasks by how often a network
// runs them. Inputs are plain vectors so that any model, trainer or tool can call these.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace clustune::costmodel {

// The evaluation set of one task: its measured programs' mean costs (seconds, > 0) and the
// model's scores for them.
struct TaskPredictions {
  std::string task;           // workload key
  std::vector<double> costs;  // true mean cost per program
  std::vector<double> scores; // predicted score per program, same length; higher = predicted faster
};

// Normalised throughput labels of one task: min(costs) / cost, in (0, 1].
std::vector<double> taskLabels(const TaskPredictions& task);

// Over all programs of all tasks, scores against labels (Tenset's metric_rmse and
// metric_r_squared).
double rootMeanSquaredError(const std::vector<TaskPredictions>& tasks);
// R² = 1 - SSres / SStot over the labels; 0 when SStot is 0 (all labels equal), never NaN.
double coefficientOfDetermination(const std::vector<TaskPredictions>& tasks);

// Ranking metrics: computed per task, then an unweighted mean over the tasks with at least two
// programs. They throw clustune::Error when no task qualifies.

// Fraction of the pairs with different labels that the scores order the same way; a score tie
// counts as half. Tasks without such a pair (all costs equal) are left out of the mean.
double pairwiseAccuracy(const std::vector<TaskPredictions>& tasks);
// Peak score@k: programs by descending score (ties by index), the running max of the labels of
// the first min(k, n), averaged over positions 1..k (positions past n repeat the last value),
// divided by the task's max label.
double peakScore(const std::vector<TaskPredictions>& tasks, int k);
// |true top-k ∩ predicted top-k| / min(k, n); true top-k by ascending cost, predicted top-k by
// descending score, ties by index in both.
double topKRecall(const std::vector<TaskPredictions>& tasks, int k);

// One task of a network with its occurrence weight (how many times the network runs it).
struct WeightedTask {
  const TaskPredictions* predictions;
  double weight;
};
// Network-level top-k score of one model (DESIGN §6):
//   Σ_t w_t·best_t / Σ_t w_t·min(cost of the model's top-k picks in t),
// best_t the min cost measured in t, the picks the first min(k, n) programs by descending score
// (ties by index). In (0, 1]; 1 when the model's top-k always contains the fastest program.
double networkTopKScore(const std::vector<WeightedTask>& tasks, int k);

// The recall@k reported by summarise.
constexpr int kSummaryTopKRecallK = 10;

// All metrics at once, for printing and for results files.
struct MetricSummary {
  double rmse;
  double r2;
  double pairwiseAccuracy;
  double peakScore1;
  double peakScore5;
  double topKRecall; // at topKRecallK
  int topKRecallK;
  std::size_t tasks;
  std::size_t programs;
};
MetricSummary summarise(const std::vector<TaskPredictions>& tasks);
// Keys in snake_case, in the order of MetricSummary's fields.
nlohmann::ordered_json metricSummaryToJson(const MetricSummary& summary);

} // namespace clustune::costmodel
