// Training an MLP cost model (DESIGN §6, REFERENCES.md "Tenset"): shuffled batches of programs
// that mix tasks, a ranking loss on normalised-throughput labels (LambdaRank by default), Adam
// with weight decay and gradient clipping, and early stopping on the validation loss, keeping
// the weights of the best epoch.
#pragma once

#include "costmodel/MlpCostModel.h"
#include "costmodel/ProgramDataset.h"
#include "nn/Adam.h"

#include <cstdint>
#include <functional>
#include <string>

namespace clustune::costmodel {

enum class LossKind { LambdaRank, MeanSquaredError, RankNet };
// "lambdarank", "mse", "ranknet"; throws clustune::Error for another name.
LossKind lossKindFromName(const std::string& name);
std::string lossKindName(LossKind kind);

// How the learning rate moves over the epochs: held at Adam's rate, or decayed along half a
// cosine from it towards 0 at the last epoch (a learning rate that falls converges in fewer
// epochs, and the last epochs stop jumping between minima).
enum class LearningRateSchedule { Constant, Cosine };
// "constant", "cosine"; throws clustune::Error for another name.
LearningRateSchedule learningRateScheduleFromName(const std::string& name);
std::string learningRateScheduleName(LearningRateSchedule schedule);

struct TrainingOptions {
  int epochs = 50;
  int batchPrograms = 512;
  LossKind loss = LossKind::LambdaRank;
  nn::AdamOptions adam = {};
  LearningRateSchedule schedule = LearningRateSchedule::Constant;
  std::uint64_t seed = 0;
  // Stop after this many epochs without a better validation loss; 0 means epochs / 6, Tenset's
  // rule.
  int patience = 0;
  // Fit the feature scale on the training set first; off when fine-tuning a model whose scale
  // must stay the one its weights were trained with.
  bool fitFeatureScale = true;
  // Wall-time limit of the whole call in seconds (0: none). Training stops before the batch
  // that would end past it, judged by the mean batch time so far; the first batch always runs.
  // For the tuner's updates, which must stay a small share of a round (docs/tuning.md).
  double secondsLimit = 0;
};

struct EpochReport {
  int epoch = 0;             // from 1
  double trainingLoss = 0;   // mean over the epoch's batches
  double validationLoss = 0; // mean over validation tasks, each task one list
  double seconds = 0;
  double programsPerSecond = 0;
  bool improved = false;
};

struct TrainingResult {
  int epochs = 0;
  int bestEpoch = 0;
  double bestValidationLoss = 0;
  double seconds = 0;
  double programsPerSecond = 0; // training programs per second of training, all epochs
  std::size_t batches = 0;      // optimiser steps taken
  bool stoppedByTimeLimit = false;
};

// Trains `model` in place; at the end it holds the weights of the epoch with the lowest
// validation loss (the last epoch's when `validation` is empty). The feature scale is fitted
// on `training` first. Deterministic for a given seed and thread count, unless
// `options.secondsLimit` stops it. Throws clustune::Error for an empty training set or a loss
// that becomes non-finite.
TrainingResult trainMlp(MlpCostModel& model, const ProgramDataset& training,
                        const ProgramDataset& validation, const TrainingOptions& options,
                        const std::function<void(const EpochReport&)>& onEpoch = {});

// The loss of `model` on `dataset` with each task's programs as one list, averaged over tasks.
double validationLoss(const MlpCostModel& model, const ProgramDataset& dataset, LossKind loss);

// The scores of every program of `dataset`, in program order, in batches (batched inference
// over both cores).
nn::Vector predictPrograms(const MlpCostModel& model, const ProgramDataset& dataset);

} // namespace clustune::costmodel
