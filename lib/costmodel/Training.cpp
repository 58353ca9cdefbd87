#include "costmodel/Training.h"

#include "costmodel/DataParallel.h"
#include "nn/Loss.h"
#include "support/Error.h"
#include "support/Random.h"
#include "support/Stopwatch.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numbers>
#include <numeric>

namespace clustune::costmodel {
namespace {

nn::LossValue evaluateLoss(LossKind kind, const nn::Vector& scores, const nn::Vector& labels) {
  switch (kind) {
  case LossKind::LambdaRank:
    return nn::lambdaRank(scores, labels);
  case LossKind::MeanSquaredError:
    return nn::meanSquaredError(scores, labels);
  case LossKind::RankNet:
    return nn::rankNet(scores, labels);
  }
  return {};
}

} // namespace

LossKind lossKindFromName(const std::string& name) {
  if (name == "lambdarank")
    return LossKind::LambdaRank;
  if (name == "mse")
    return LossKind::MeanSquaredError;
  if (name == "ranknet")
    return LossKind::RankNet;
  throw Error("unknown loss '" + name + "' (expected lambdarank, mse or ranknet)");
}

std::string lossKindName(LossKind kind) {
  switch (kind) {
  case LossKind::LambdaRank:
    return "lambdarank";
  case LossKind::MeanSquaredError:
    return "mse";
  case LossKind::RankNet:
    return "ranknet";
  }
  return "";
}

LearningRateSchedule learningRateScheduleFromName(const std::string& name) {
  if (name == "constant")
    return LearningRateSchedule::Constant;
  if (name == "cosine")
    return LearningRateSchedule::Cosine;
  throw Error("unknown learning-rate schedule '" + name + "' (expected constant or cosine)");
}

std::string learningRateScheduleName(LearningRateSchedule schedule) {
  return schedule == LearningRateSchedule::Cosine ? "cosine" : "constant";
}

nn::Vector predictPrograms(const MlpCostModel& model, const ProgramDataset& dataset) {
  // Large enough that each product keeps both cores busy, small enough for the cache.
  constexpr std::size_t kProgramsPerBatch = 4096;
  nn::Vector scores(static_cast<Eigen::Index>(dataset.programCount()));
  for (std::size_t first = 0; first < dataset.programCount(); first += kProgramsPerBatch) {
    const std::size_t last = std::min(dataset.programCount(), first + kProgramsPerBatch);
    const int rowBegin = dataset.programOffsets[first];
    std::vector<int> offsets(last - first + 1);
    for (std::size_t program = first; program <= last; ++program)
      offsets[program - first] = dataset.programOffsets[program] - rowBegin;
    const nn::Matrix statements =
        dataset.statements.middleRows(rowBegin, dataset.programOffsets[last] - rowBegin);
    scores.segment(static_cast<Eigen::Index>(first), static_cast<Eigen::Index>(last - first)) =
        model.predict(statements, offsets);
  }
  return scores;
}

double validationLoss(const MlpCostModel& model, const ProgramDataset& dataset, LossKind loss) {
  if (dataset.programCount() == 0)
    return 0.0;
  const nn::Vector scores = predictPrograms(model, dataset);
  const std::vector<float> labels = dataset.labels();
  double total = 0;
  std::size_t tasks = 0;
  for (const std::vector<std::size_t>& programs : dataset.programsByTask()) {
    if (programs.size() < 2)
      continue;
    nn::Vector taskScores(static_cast<Eigen::Index>(programs.size()));
    nn::Vector taskLabels(static_cast<Eigen::Index>(programs.size()));
    for (std::size_t index = 0; index < programs.size(); ++index) {
      taskScores(static_cast<Eigen::Index>(index)) =
          scores(static_cast<Eigen::Index>(programs[index]));
      taskLabels(static_cast<Eigen::Index>(index)) = labels[programs[index]];
    }
    total += evaluateLoss(loss, taskScores, taskLabels).value;
    ++tasks;
  }
  return tasks == 0 ? 0.0 : total / static_cast<double>(tasks);
}

TrainingResult trainMlp(MlpCostModel& model, const ProgramDataset& training,
                        const ProgramDataset& validation, const TrainingOptions& options,
                        const std::function<void(const EpochReport&)>& onEpoch) {
  if (training.programCount() == 0)
    throw Error("no training programs (every record was skipped or held out)");
  const auto start = SteadyClock::now();
  if (options.fitFeatureScale)
    model.fitFeatureScale(training.statements);
  const std::vector<float> labels = training.labels();
  nn::Adam optimiser(model.parameters(), options.adam);
  DataParallelReplicas replicas(model);
  const BatchLoss batchLoss = [&](const nn::Vector& scores, const nn::Vector& batchLabels) {
    return evaluateLoss(options.loss, scores, batchLabels);
  };
  Rng rng(options.seed);
  const int patience = options.patience > 0 ? options.patience : std::max(1, options.epochs / 6);

  std::vector<std::size_t> order(training.programCount());
  std::iota(order.begin(), order.end(), 0);
  TrainingResult result;
  MlpCostModel best = model;
  double bestLoss = INFINITY;
  int epochsWithoutImprovement = 0;
  std::size_t trainedPrograms = 0;
  const double secondsBeforeFirstBatch = secondsSince(start);
  for (int epoch = 1; epoch <= options.epochs; ++epoch) {
    const auto epochStart = SteadyClock::now();
    if (options.schedule == LearningRateSchedule::Cosine)
      optimiser.setLearningRate(
          static_cast<float>(options.adam.learningRate * 0.5 *
                             (1.0 + std::cos(std::numbers::pi * (epoch - 1) / options.epochs))));
    rng.shuffle(order);
    double lossSum = 0;
    std::size_t batches = 0;
    std::size_t epochPrograms = 0;
    for (std::size_t first = 0; first < order.size();
         first += static_cast<std::size_t>(options.batchPrograms)) {
      if (options.secondsLimit > 0 && result.batches > 0) {
        const double elapsed = secondsSince(start);
        const double meanBatch =
            (elapsed - secondsBeforeFirstBatch) / static_cast<double>(result.batches);
        if (elapsed + meanBatch > options.secondsLimit) {
          result.stoppedByTimeLimit = true;
          break;
        }
      }
      const std::size_t count =
          std::min(order.size() - first, static_cast<std::size_t>(options.batchPrograms));
      const nn::LossValue loss =
          replicas.step(training, labels, order.data() + first, count, batchLoss);
      if (!std::isfinite(loss.value))
        throw Error("training diverged: the " + lossKindName(options.loss) +
                    " loss became non-finite in epoch " + std::to_string(epoch));
      optimiser.step();
      lossSum += loss.value;
      ++batches;
      ++result.batches;
      epochPrograms += count;
      trainedPrograms += count;
    }
    EpochReport report;
    report.epoch = epoch;
    report.trainingLoss = lossSum / static_cast<double>(std::max<std::size_t>(batches, 1));
    report.validationLoss = validation.programCount() > 0
                                ? validationLoss(model, validation, options.loss)
                                : report.trainingLoss;
    report.seconds = secondsSince(epochStart);
    report.programsPerSecond = static_cast<double>(epochPrograms) / report.seconds;
    report.improved = report.validationLoss < bestLoss;
    if (report.improved) {
      bestLoss = report.validationLoss;
      best = model;
      result.bestEpoch = epoch;
      epochsWithoutImprovement = 0;
    } else {
      ++epochsWithoutImprovement;
    }
    result.epochs = epoch;
    if (onEpoch)
      onEpoch(report);
    if (result.stoppedByTimeLimit ||
        (validation.programCount() > 0 && epochsWithoutImprovement >= patience))
      break;
  }
  if (validation.programCount() > 0)
    model = best;
  result.bestValidationLoss = bestLoss;
  result.seconds = secondsSince(start);
  result.programsPerSecond = static_cast<double>(trainedPrograms) / std::max(result.seconds, 1e-9);
  return result;
}

} // namespace clustune::costmodel
