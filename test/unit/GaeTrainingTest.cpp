// GAE training end to end on a toy set of clustered graphs and stars whose features follow their
// structure: the loss falls, held-out edges are predicted (test AUC > 0.8), and training is
// deterministic per seed, in full batch and in mini-batches.
#include "GaeTestSupport.h"
#include "gae/Training.h"
#include "support/Error.h"

#include <cmath>
#include <cstdio>
#include <gtest/gtest.h>

using namespace clustune;
using namespace clustune::gae;
using namespace clustune::gae::testing;

TEST(GaeTraining, LearnsToPredictHeldOutEdgesOfToyGraphs) {
  const std::vector<features::TaskGraph> graphs = toyGraphs(40, 1);
  GaeTrainingOptions options;
  options.seed = 3;
  std::vector<GaeEpochReport> epochs;
  const TrainedGae trained = trainGae(
      pointersTo(graphs), options, [&](const GaeEpochReport& epoch) { epochs.push_back(epoch); });
  ASSERT_EQ(epochs.size(), 200u);
  EXPECT_EQ(trained.report.epochs, 200);
  EXPECT_LT(trained.report.lastEpochLoss, 0.8 * trained.report.firstEpochLoss);
  EXPECT_GT(trained.report.testAuc, 0.8);
  EXPECT_GT(trained.report.testAveragePrecision, 0.7);
  EXPECT_GT(epochs.back().validationAuc, 0.7);
  EXPECT_TRUE(std::isfinite(epochs.back().validationAveragePrecision));
  EXPECT_LT(trained.report.featureReconstructionMse, 0.5);
  EXPECT_GT(trained.report.seconds, 0.0);
  RecordProperty("test_auc", std::to_string(trained.report.testAuc));
  std::printf("test AUC %.3f AP %.3f feature MSE %.3f loss %.3f -> %.3f\n", trained.report.testAuc,
              trained.report.testAveragePrecision, trained.report.featureReconstructionMse,
              trained.report.firstEpochLoss, trained.report.lastEpochLoss);
}

TEST(GaeTraining, DeterministicPerSeedInMiniBatches) {
  const std::vector<features::TaskGraph> graphs = toyGraphs(20, 2);
  GaeTrainingOptions options;
  options.epochs = 15;
  options.graphsPerBatch = 6;
  options.seed = 4;
  const TrainedGae first = trainGae(pointersTo(graphs), options);
  const TrainedGae second = trainGae(pointersTo(graphs), options);
  EXPECT_EQ(first.report.lastEpochLoss, second.report.lastEpochLoss);
  EXPECT_EQ(first.report.testAuc, second.report.testAuc);
  EXPECT_TRUE(embedTaskGraph(first.model, first.standardizer, graphs[0]) ==
              embedTaskGraph(second.model, second.standardizer, graphs[0]));
  EXPECT_LT(first.report.lastEpochLoss, first.report.firstEpochLoss);
}

TEST(GaeTraining, RefusesNoGraphs) {
  EXPECT_THROW(trainGae({}, {}), Error);
}
