// Training the MLP (costmodel/Training.h) on programs of real tasks whose costs the test sets:
// the model learns a ranking it could not know before training, early stopping keeps the best
// epoch, training is deterministic per seed, a time limit stops it between steps, a
// data-parallel step gives the gradients of the whole batch, and bad input is an error, never
// a NaN model.
#include "CostModelTestSupport.h"
#include "costmodel/DataParallel.h"
#include "costmodel/DatasetSplit.h"
#include "costmodel/Metrics.h"
#include "costmodel/Training.h"
#include "runtime/ThreadPool.h"
#include "support/Error.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <numeric>

using namespace clustune;
using namespace clustune::costmodel;
using costmodel::testing::sampledRecords;
using measure::testing::matmulTask;

namespace {

// Programs of a matmul task whose cost falls with the innermost vector length and parallel
// extent that features capture: the cost is a function of the program's own features, so a
// model can learn it. Index-based costs would not be learnable.
struct LearnableData {
  ProgramDataset dataset;
};

double learnableCost(const nn::Matrix& rows) {
  double cost = 1.0;
  for (Eigen::Index row = 0; row < rows.rows(); ++row) {
    cost += 0.5 * rows(row, features::index::kVectorize + features::index::kAnnotationLength);
    cost -= 0.3 * rows(row, features::index::kParallel + features::index::kAnnotationProduct);
    cost += 0.2 * rows(row, features::index::kNumLoops);
  }
  return std::exp(cost / 4.0) * 1e-4;
}

ProgramDataset learnableDataset() {
  std::vector<graph::Task> tasks = {matmulTask(64, 64, 64), matmulTask(32, 96, 48)};
  std::vector<measure::Record> records;
  for (const graph::Task& task : tasks) {
    auto sampled = sampledRecords(
        task, 120, [](int) { return 1.0; }, 3);
    records.insert(records.end(), sampled.begin(), sampled.end());
  }
  ProgramDataset dataset = buildProgramDataset(tasks, records);
  for (std::size_t program = 0; program < dataset.programCount(); ++program) {
    const int begin = dataset.programOffsets[program];
    dataset.costs[program] = learnableCost(
        dataset.statements.middleRows(begin, dataset.programOffsets[program + 1] - begin));
  }
  return dataset;
}

double heldOutPairwiseAccuracy(const MlpCostModel& model, const ProgramDataset& dataset) {
  const nn::Vector scores = predictPrograms(model, dataset);
  std::vector<TaskPredictions> tasks(dataset.taskKeys.size());
  for (std::size_t program = 0; program < dataset.programCount(); ++program) {
    TaskPredictions& task = tasks[static_cast<std::size_t>(dataset.programTask[program])];
    task.costs.push_back(dataset.costs[program]);
    task.scores.push_back(scores(static_cast<Eigen::Index>(program)));
  }
  return pairwiseAccuracy(tasks);
}

constexpr MlpArchitecture kArchitecture{
    .features = static_cast<int>(kStatementFeatureCount), .hidden = 32, .residualBlocks = 2};

} // namespace

TEST(CostModelTraining, LearnsARankingOfHeldOutPrograms) {
  const ProgramDataset dataset = learnableDataset();
  const ProgramSplit split = splitWithinTasks(dataset, 0.3, 5);
  const ProgramDataset training = selectPrograms(dataset, split.first);
  const ProgramDataset heldOut = selectPrograms(dataset, split.second);
  for (LossKind loss : {LossKind::LambdaRank, LossKind::RankNet, LossKind::MeanSquaredError}) {
    MlpCostModel model(kArchitecture, 1);
    model.fitFeatureScale(training.statements);
    const double before = heldOutPairwiseAccuracy(model, heldOut);
    TrainingOptions options;
    options.epochs = 60;
    options.batchPrograms = 64;
    options.loss = loss;
    options.adam.learningRate = 3e-3f;
    const TrainingResult result = trainMlp(model, training, heldOut, options);
    const double after = heldOutPairwiseAccuracy(model, heldOut);
    EXPECT_GT(after, 0.85) << lossKindName(loss) << " (before training: " << before << ")";
    EXPECT_GT(after, before + 0.1) << lossKindName(loss);
    EXPECT_GE(result.bestEpoch, 1);
    EXPECT_LE(result.bestEpoch, result.epochs);
  }
}

TEST(CostModelTraining, KeepsTheWeightsOfTheEpochWithTheBestValidationLoss) {
  const ProgramDataset dataset = learnableDataset();
  const ProgramSplit split = splitWithinTasks(dataset, 0.3, 5);
  const ProgramDataset training = selectPrograms(dataset, split.first);
  const ProgramDataset validation = selectPrograms(dataset, split.second);
  MlpCostModel model(kArchitecture, 2);
  TrainingOptions options;
  options.epochs = 12;
  options.batchPrograms = 32;
  options.patience = 100;
  std::vector<double> losses;
  const TrainingResult result =
      trainMlp(model, training, validation, options,
               [&](const EpochReport& epoch) { losses.push_back(epoch.validationLoss); });
  ASSERT_EQ(losses.size(), 12u);
  const double best = *std::min_element(losses.begin(), losses.end());
  EXPECT_DOUBLE_EQ(result.bestValidationLoss, best);
  EXPECT_NEAR(validationLoss(model, validation, options.loss), best, 1e-6 * std::max(1.0, best));
}

TEST(CostModelTraining, StopsEarlyAfterPatienceEpochsWithoutImprovement) {
  const ProgramDataset dataset = learnableDataset();
  const ProgramSplit split = splitWithinTasks(dataset, 0.3, 5);
  MlpCostModel model(kArchitecture, 2);
  TrainingOptions options;
  options.epochs = 200;
  options.batchPrograms = 32;
  options.patience = 2;
  options.adam.learningRate = 0.05f; // too high: the validation loss soon stops improving
  const TrainingResult result = trainMlp(model, selectPrograms(dataset, split.first),
                                         selectPrograms(dataset, split.second), options);
  EXPECT_LT(result.epochs, 200);
  EXPECT_EQ(result.epochs, result.bestEpoch + 2);
}

TEST(CostModelTraining, IsDeterministicForASeed) {
  const ProgramDataset dataset = learnableDataset();
  TrainingOptions options;
  options.epochs = 3;
  options.batchPrograms = 50;
  options.seed = 9;
  MlpCostModel first(kArchitecture, 4), second(kArchitecture, 4);
  trainMlp(first, dataset, {}, options);
  trainMlp(second, dataset, {}, options);
  EXPECT_EQ(predictPrograms(first, dataset), predictPrograms(second, dataset));
}

TEST(CostModelTraining, ATimeLimitShorterThanAStepStopsAfterTheFirstStep) {
  const ProgramDataset dataset = learnableDataset();
  TrainingOptions options;
  options.epochs = 5;
  options.batchPrograms = 50;
  options.secondsLimit = 1e-9;
  const MlpCostModel untrained(kArchitecture, 4);
  MlpCostModel model = untrained;
  const TrainingResult result = trainMlp(model, dataset, {}, options);
  EXPECT_TRUE(result.stoppedByTimeLimit);
  EXPECT_EQ(result.batches, 1u);
  EXPECT_EQ(result.epochs, 1);
  EXPECT_NE(predictPrograms(model, dataset), predictPrograms(untrained, dataset));
}

TEST(CostModelTraining, ATimeLimitThatIsNotReachedChangesNothing) {
  const ProgramDataset dataset = learnableDataset();
  TrainingOptions options;
  options.epochs = 3;
  options.batchPrograms = 50;
  MlpCostModel unlimited(kArchitecture, 4), limited(kArchitecture, 4);
  const TrainingResult full = trainMlp(unlimited, dataset, {}, options);
  options.secondsLimit = 1e6;
  const TrainingResult result = trainMlp(limited, dataset, {}, options);
  EXPECT_FALSE(result.stoppedByTimeLimit);
  EXPECT_EQ(result.batches, full.batches);
  EXPECT_EQ(predictPrograms(limited, dataset), predictPrograms(unlimited, dataset));
}

TEST(CostModelTraining, AnEmptyTrainingSetIsAnError) {
  MlpCostModel model(kArchitecture, 1);
  EXPECT_THROW(trainMlp(model, {}, {}, {}), Error);
}

TEST(CostModelTraining, LossNamesRoundTripAndUnknownNamesAreErrors) {
  for (LossKind kind : {LossKind::LambdaRank, LossKind::MeanSquaredError, LossKind::RankNet})
    EXPECT_EQ(lossKindFromName(lossKindName(kind)), kind);
  EXPECT_THROW(lossKindFromName("hinge"), Error);
}

TEST(CostModelTraining, ScheduleNamesRoundTripAndUnknownNamesAreErrors) {
  for (LearningRateSchedule schedule :
       {LearningRateSchedule::Constant, LearningRateSchedule::Cosine})
    EXPECT_EQ(learningRateScheduleFromName(learningRateScheduleName(schedule)), schedule);
  EXPECT_THROW(learningRateScheduleFromName("step"), Error);
}

// A data-parallel step (one shard per thread, each through its own copy of the model) gives the
// loss and gradients of the whole batch through one model, up to the order of float sums.
TEST(CostModelDataParallel, ShardedStepMatchesTheWholeBatchThroughOneModel) {
  const ProgramDataset dataset = learnableDataset();
  const std::vector<float> labels = dataset.labels();
  std::vector<std::size_t> programs(dataset.programCount());
  std::iota(programs.begin(), programs.end(), 0);
  MlpCostModel sharded(kArchitecture, 4);
  sharded.fitFeatureScale(dataset.statements);
  MlpCostModel whole = sharded;
  DataParallelReplicas replicas(sharded);
  if (runtime::ThreadPool::global().threadCount() > 1) {
    ASSERT_GT(replicas.shardsFor(programs.size()), 1u);
  }
  const BatchLoss loss = [](const nn::Vector& scores, const nn::Vector& batchLabels) {
    return nn::lambdaRank(scores, batchLabels);
  };
  const nn::LossValue shardedLoss =
      replicas.step(dataset, labels, programs.data(), programs.size(), loss);

  const ProgramBatch batch = gatherPrograms(dataset, labels, programs.data(), programs.size());
  const nn::LossValue wholeLoss =
      loss(whole.forward(batch.statements, batch.offsets), batch.labels);
  whole.backward(wholeLoss.gradient);

  // The scores are float sums in another order, so the loss agrees to float precision.
  EXPECT_NEAR(shardedLoss.value, wholeLoss.value, 1e-6 * std::abs(wholeLoss.value));
  const std::vector<nn::Parameter*> expected = whole.parameters();
  const std::vector<nn::Parameter*> actual = sharded.parameters();
  ASSERT_EQ(expected.size(), actual.size());
  // Relative to the largest gradient: some (the head's bias) are sums that cancel to near 0.
  float scale = 0;
  for (const nn::Parameter* parameter : expected)
    scale = std::max(scale, parameter->gradient.cwiseAbs().maxCoeff());
  ASSERT_GT(scale, 0);
  for (std::size_t parameter = 0; parameter < expected.size(); ++parameter) {
    EXPECT_LT((actual[parameter]->gradient - expected[parameter]->gradient).cwiseAbs().maxCoeff(),
              1e-4f * scale)
        << expected[parameter]->name;
  }
}
