// Tenset's cost-model evaluation metrics; see Metrics.h and docs/metrics.md for the definitions.
#include "costmodel/Metrics.h"

#include "costmodel/Labels.h"
#include "support/Error.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numeric>

namespace clustune::costmodel {

namespace {

void validateTask(const TaskPredictions& task) {
  const ErrorContext context{.task = task.task};
  if (task.costs.empty())
    throw Error("no programs to evaluate", context);
  if (task.costs.size() != task.scores.size())
    throw Error(std::to_string(task.costs.size()) + " costs but " +
                    std::to_string(task.scores.size()) + " scores",
                context);
  for (std::size_t i = 0; i < task.costs.size(); ++i) {
    if (!std::isfinite(task.costs[i]) || task.costs[i] <= 0)
      throw Error("cost of program " + std::to_string(i) + " is not finite and positive", context);
    if (!std::isfinite(task.scores[i]))
      throw Error("score of program " + std::to_string(i) + " is not finite", context);
  }
}

void validateTasks(const std::vector<TaskPredictions>& tasks) {
  if (tasks.empty())
    throw Error("no tasks to evaluate");
  for (const TaskPredictions& task : tasks)
    validateTask(task);
}

void validateK(int k) {
  if (k < 1)
    throw Error("k must be at least 1, got " + std::to_string(k));
}

// Program indices by descending score; a stable sort so that equal scores keep index order and
// the metrics do not depend on the sort implementation.
std::vector<std::size_t> indicesByDescendingScore(const TaskPredictions& task) {
  std::vector<std::size_t> order(task.scores.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return task.scores[a] > task.scores[b]; });
  return order;
}

// Program indices by ascending cost, ties by index. Costs rather than labels, so that rounding in
// min/cost cannot merge two different costs.
std::vector<std::size_t> indicesByAscendingCost(const TaskPredictions& task) {
  std::vector<std::size_t> order(task.costs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return task.costs[a] < task.costs[b]; });
  return order;
}

double taskPairwiseAccuracy(const TaskPredictions& task, std::size_t& pairsWithDifferentLabels) {
  // All pairs, O(n²): tasks hold at most a few thousand programs, and counting pairs directly
  // keeps the half credit for score ties obvious. Costs stand in for labels (label_i > label_j
  // exactly when cost_i < cost_j) so that rounding in min/cost cannot merge two different costs.
  const std::vector<double>& costs = task.costs;
  double agreeing = 0;
  pairsWithDifferentLabels = 0;
  for (std::size_t i = 0; i < costs.size(); ++i) {
    for (std::size_t j = i + 1; j < costs.size(); ++j) {
      if (costs[i] == costs[j])
        continue;
      ++pairsWithDifferentLabels;
      if (task.scores[i] == task.scores[j])
        agreeing += 0.5;
      else if ((costs[i] < costs[j]) == (task.scores[i] > task.scores[j]))
        agreeing += 1;
    }
  }
  return pairsWithDifferentLabels == 0 ? 0 : agreeing / double(pairsWithDifferentLabels);
}

double taskPeakScore(const TaskPredictions& task, int k) {
  const std::vector<double> labels = taskLabels(task);
  const std::vector<std::size_t> order = indicesByDescendingScore(task);
  const std::size_t picked = std::min<std::size_t>(std::size_t(k), order.size());
  double runningMax = 0;
  double sum = 0;
  for (std::size_t position = 0; position < picked; ++position) {
    runningMax = std::max(runningMax, labels[order[position]]);
    sum += runningMax;
  }
  // A model cannot pick more programs than were measured: the curve stays at its last value.
  sum += double(std::size_t(k) - picked) * runningMax;
  const double maxLabel = *std::max_element(labels.begin(), labels.end());
  return sum / double(k) / maxLabel;
}

double taskTopKRecall(const TaskPredictions& task, int k) {
  const std::size_t picked = std::min<std::size_t>(std::size_t(k), task.costs.size());
  std::vector<std::size_t> trueTop = indicesByAscendingCost(task);
  std::vector<std::size_t> predictedTop = indicesByDescendingScore(task);
  trueTop.resize(picked);
  predictedTop.resize(picked);
  std::sort(trueTop.begin(), trueTop.end());
  std::sort(predictedTop.begin(), predictedTop.end());
  std::vector<std::size_t> common;
  std::set_intersection(trueTop.begin(), trueTop.end(), predictedTop.begin(), predictedTop.end(),
                        std::back_inserter(common));
  return double(common.size()) / double(picked);
}

// Unweighted mean of a per-task ranking metric over the tasks with at least two programs: with one
// program every ranking is right, so such tasks would only inflate the mean.
template <typename PerTask>
double meanOverRankableTasks(const std::vector<TaskPredictions>& tasks, PerTask perTask) {
  double sum = 0;
  std::size_t counted = 0;
  for (const TaskPredictions& task : tasks) {
    if (task.costs.size() < 2)
      continue;
    sum += perTask(task);
    ++counted;
  }
  if (counted == 0)
    throw Error("no task has at least two programs to rank");
  return sum / double(counted);
}

} // namespace

std::vector<double> taskLabels(const TaskPredictions& task) {
  validateTask(task);
  const double fastest = *std::min_element(task.costs.begin(), task.costs.end());
  std::vector<double> labels;
  labels.reserve(task.costs.size());
  for (double cost : task.costs)
    labels.push_back(normalisedThroughput(cost, fastest));
  return labels;
}

double rootMeanSquaredError(const std::vector<TaskPredictions>& tasks) {
  validateTasks(tasks);
  double squaredErrors = 0;
  std::size_t programs = 0;
  for (const TaskPredictions& task : tasks) {
    const std::vector<double> labels = taskLabels(task);
    for (std::size_t i = 0; i < labels.size(); ++i) {
      const double error = task.scores[i] - labels[i];
      squaredErrors += error * error;
    }
    programs += labels.size();
  }
  return std::sqrt(squaredErrors / double(programs));
}

double coefficientOfDetermination(const std::vector<TaskPredictions>& tasks) {
  validateTasks(tasks);
  std::vector<double> allLabels;
  std::vector<double> allScores;
  for (const TaskPredictions& task : tasks) {
    const std::vector<double> labels = taskLabels(task);
    allLabels.insert(allLabels.end(), labels.begin(), labels.end());
    allScores.insert(allScores.end(), task.scores.begin(), task.scores.end());
  }
  const double meanLabel =
      std::accumulate(allLabels.begin(), allLabels.end(), 0.0) / double(allLabels.size());
  double residualSum = 0;
  double totalSum = 0;
  for (std::size_t i = 0; i < allLabels.size(); ++i) {
    residualSum += (allScores[i] - allLabels[i]) * (allScores[i] - allLabels[i]);
    totalSum += (allLabels[i] - meanLabel) * (allLabels[i] - meanLabel);
  }
  // All labels equal (e.g. one program per task): R² is undefined; report 0 rather than NaN so a
  // summary stays printable and comparable.
  if (totalSum == 0)
    return 0;
  return 1 - residualSum / totalSum;
}

double pairwiseAccuracy(const std::vector<TaskPredictions>& tasks) {
  validateTasks(tasks);
  double sum = 0;
  std::size_t counted = 0;
  for (const TaskPredictions& task : tasks) {
    if (task.costs.size() < 2)
      continue;
    std::size_t pairs = 0;
    const double accuracy = taskPairwiseAccuracy(task, pairs);
    // A task whose programs all cost the same has nothing to order; it would count as 0 (or
    // any value we made up), so it is left out.
    if (pairs == 0)
      continue;
    sum += accuracy;
    ++counted;
  }
  if (counted == 0)
    throw Error("no task has two programs with different costs to compare");
  return sum / double(counted);
}

double peakScore(const std::vector<TaskPredictions>& tasks, int k) {
  validateK(k);
  validateTasks(tasks);
  return meanOverRankableTasks(tasks,
                               [k](const TaskPredictions& task) { return taskPeakScore(task, k); });
}

double topKRecall(const std::vector<TaskPredictions>& tasks, int k) {
  validateK(k);
  validateTasks(tasks);
  return meanOverRankableTasks(
      tasks, [k](const TaskPredictions& task) { return taskTopKRecall(task, k); });
}

double networkTopKScore(const std::vector<WeightedTask>& tasks, int k) {
  validateK(k);
  if (tasks.empty())
    throw Error("no tasks to evaluate");
  double weightedBest = 0;
  double weightedPicked = 0;
  for (const WeightedTask& weighted : tasks) {
    assert(weighted.predictions != nullptr);
    const TaskPredictions& task = *weighted.predictions;
    validateTask(task);
    if (!std::isfinite(weighted.weight) || weighted.weight <= 0)
      throw Error("weight " + std::to_string(weighted.weight) + " is not finite and positive",
                  {.task = task.task});
    const double best = *std::min_element(task.costs.begin(), task.costs.end());
    const std::vector<std::size_t> order = indicesByDescendingScore(task);
    const std::size_t picked = std::min<std::size_t>(std::size_t(k), order.size());
    double pickedBest = task.costs[order[0]];
    for (std::size_t position = 1; position < picked; ++position)
      pickedBest = std::min(pickedBest, task.costs[order[position]]);
    weightedBest += weighted.weight * best;
    weightedPicked += weighted.weight * pickedBest;
  }
  return weightedBest / weightedPicked;
}

MetricSummary summarise(const std::vector<TaskPredictions>& tasks) {
  validateTasks(tasks);
  std::size_t programs = 0;
  for (const TaskPredictions& task : tasks)
    programs += task.costs.size();
  return MetricSummary{.rmse = rootMeanSquaredError(tasks),
                       .r2 = coefficientOfDetermination(tasks),
                       .pairwiseAccuracy = pairwiseAccuracy(tasks),
                       .peakScore1 = peakScore(tasks, 1),
                       .peakScore5 = peakScore(tasks, 5),
                       .topKRecall = topKRecall(tasks, kSummaryTopKRecallK),
                       .topKRecallK = kSummaryTopKRecallK,
                       .tasks = tasks.size(),
                       .programs = programs};
}

nlohmann::ordered_json metricSummaryToJson(const MetricSummary& summary) {
  nlohmann::ordered_json json;
  json["rmse"] = summary.rmse;
  json["r2"] = summary.r2;
  json["pairwise_accuracy"] = summary.pairwiseAccuracy;
  json["peak_score_1"] = summary.peakScore1;
  json["peak_score_5"] = summary.peakScore5;
  json["top_k_recall"] = summary.topKRecall;
  json["top_k_recall_k"] = summary.topKRecallK;
  json["tasks"] = summary.tasks;
  json["programs"] = summary.programs;
  return json;
}

} // namespace clustune::costmodel
