// The tuner's learned cost models (tune/LearnedCostModels.h) and cost-model directories
// (tune/CostModelDirectory.h), on the bundled models and real sampled schedules: routing by
// cluster for tasks the clustering saw and by GAE embedding for others; fine-tuning and the
// online model learn a ranking the test chooses, within an update budget; directories for
// another target are refused.
#include "SearchTestSupport.h"
#include "onnx/ModelTasks.h"
#include "search/Sample.h"
#include "support/Error.h"
#include "tune/CostModelDirectory.h"
#include "tune/LearnedCostModels.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace clustune;
using namespace clustune::search::testing;

namespace {

const std::string kBundled = std::string(CLUSTUNE_SOURCE_DIR) + "/models/costmodels/cpu-znver5";

// Candidates of a matmul whose "measured" cost falls with the first tile's innermost factor:
// a ranking the features can express, since that factor is the vectorized loop's length.
struct RankedCandidates {
  std::vector<search::Candidate> candidates;
  std::vector<double> seconds;
};

RankedCandidates rankedCandidates(const te::Workload& workload, int count, std::uint64_t seed) {
  RankedCandidates result;
  for (const search::Steps& steps : search::sample(workload, count, seed, {.cores = 2})) {
    double innermost = 1;
    for (const schedule::Step& step : steps)
      if (const auto* split = std::get_if<schedule::SplitStep>(&step);
          split && split->factors.size() == 3) {
        innermost = static_cast<double>(split->factors.back());
        break;
      }
    result.candidates.push_back(*search::makeCandidate(workload, steps));
    result.seconds.push_back(1e-3 / innermost);
  }
  return result;
}

std::vector<search::Measurement> measurementsOf(const graph::Task& task,
                                                const RankedCandidates& ranked) {
  std::vector<search::Measurement> measurements;
  for (std::size_t i = 0; i < ranked.candidates.size(); ++i)
    measurements.push_back({&task, &ranked.candidates[i], ranked.seconds[i]});
  return measurements;
}

// The share of candidate pairs with different costs that the scores order correctly.
double pairwiseAccuracy(search::CostModel& model, const graph::Task& task,
                        const RankedCandidates& ranked) {
  std::vector<const search::Candidate*> pointers;
  for (const search::Candidate& candidate : ranked.candidates)
    pointers.push_back(&candidate);
  const std::vector<double> scores = model.predict(task, pointers);
  int right = 0, pairs = 0;
  for (std::size_t a = 0; a < scores.size(); ++a)
    for (std::size_t b = a + 1; b < scores.size(); ++b) {
      if (ranked.seconds[a] == ranked.seconds[b])
        continue;
      ++pairs;
      right += (ranked.seconds[a] < ranked.seconds[b]) == (scores[a] > scores[b]) ? 1 : 0;
    }
  return pairs == 0 ? 0 : static_cast<double>(right) / pairs;
}

TEST(TuneCostModels, CorpusTasksUseTheirClusterAndUnseenTasksTheirEmbedding) {
  const tune::CostModelDirectory directory = tune::loadCostModelDirectory(kBundled, "znver5");
  ASSERT_TRUE(directory.gae.has_value());
  tune::PretrainedCostModel model(directory.ensemble, &*directory.gae, tune::Routing::Cluster,
                                  {.enabled = false});
  const std::vector<graph::Task> resnet =
      onnx_import::partitionModelFile(std::string(CLUSTUNE_SOURCE_DIR) + "/models/resnet18.onnx",
                                      {})
          .tasks;
  for (const graph::Task& task : resnet) {
    ASSERT_TRUE(directory.ensemble.assigned(task.key)) << task.key;
    EXPECT_EQ(model.modelFor(task), directory.ensemble.route(task.key));
    EXPECT_FALSE(model.routedByEmbedding(task.key));
  }
  const graph::Task unseen = matmulTask(24, 40, 56);
  ASSERT_FALSE(directory.ensemble.assigned(unseen.key));
  const std::string& name = model.modelFor(unseen);
  EXPECT_TRUE(model.routedByEmbedding(unseen.key));
  EXPECT_TRUE(directory.ensemble.hasModel(name)) << name;

  tune::PretrainedCostModel global(directory.ensemble, nullptr, tune::Routing::Global,
                                   {.enabled = false});
  EXPECT_EQ(global.modelFor(resnet.front()), "global");
  EXPECT_EQ(global.name(), "global");
}

TEST(TuneCostModels, FineTuningLearnsTheRunsOwnRanking) {
  const tune::CostModelDirectory directory = tune::loadCostModelDirectory(kBundled, "znver5");
  const graph::Task task = matmulTask(64, 64, 64);
  const te::Workload workload = te::lowerTask(task);
  const RankedCandidates training = rankedCandidates(workload, 96, 1);
  const RankedCandidates held = rankedCandidates(workload, 48, 2);
  tune::PretrainedCostModel model(directory.ensemble, nullptr, tune::Routing::Global,
                                  {.enabled = true});
  const double before = pairwiseAccuracy(model, task, held);
  const std::vector<search::Measurement> measurements = measurementsOf(task, training);
  for (int round = 0; round < 3; ++round)
    model.update(measurements, {});
  const double after = pairwiseAccuracy(model, task, held);
  EXPECT_GT(after, 0.75) << "before " << before;
  EXPECT_GT(after, before);

  tune::PretrainedCostModel frozen(directory.ensemble, nullptr, tune::Routing::Global,
                                   {.enabled = false});
  frozen.update(measurements, {});
  EXPECT_DOUBLE_EQ(pairwiseAccuracy(frozen, task, held), before);
}

TEST(TuneCostModels, ASpentUpdateBudgetStillTakesOneStepAndNoMore) {
  const tune::CostModelDirectory directory = tune::loadCostModelDirectory(kBundled, "znver5");
  const graph::Task task = matmulTask(64, 64, 64);
  const te::Workload workload = te::lowerTask(task);
  const RankedCandidates training = rankedCandidates(workload, 96, 1);
  const std::vector<search::Measurement> measurements = measurementsOf(task, training);
  std::vector<const search::Candidate*> candidates;
  for (const search::Candidate& candidate : training.candidates)
    candidates.push_back(&candidate);
  const auto scoresAfter = [&](search::UpdateBudget budget) {
    tune::PretrainedCostModel model(directory.ensemble, nullptr, tune::Routing::Global,
                                    {.enabled = true});
    model.update(measurements, budget);
    return model.predict(task, candidates);
  };
  tune::PretrainedCostModel untouched(directory.ensemble, nullptr, tune::Routing::Global,
                                      {.enabled = false});
  const std::vector<double> before = untouched.predict(task, candidates);
  const std::vector<double> oneStep = scoresAfter({.seconds = 1e-9});
  EXPECT_NE(oneStep, before);
  EXPECT_NE(oneStep, scoresAfter({})); // ten epochs, one step each
  EXPECT_EQ(scoresAfter({.seconds = 1e6}), scoresAfter({}));
}

TEST(TuneCostModels, TheOnlineModelKnowsNothingFirstThenLearns) {
  const graph::Task task = matmulTask(64, 64, 64);
  const te::Workload workload = te::lowerTask(task);
  const RankedCandidates training = rankedCandidates(workload, 96, 3);
  const RankedCandidates held = rankedCandidates(workload, 48, 4);
  tune::OnlineCostModel model(5, {});
  EXPECT_FALSE(model.informative());
  std::vector<const search::Candidate*> first = {&held.candidates[0], &held.candidates[1]};
  EXPECT_EQ(model.predict(task, first), (std::vector<double>{0.0, 0.0}));
  model.update(measurementsOf(task, training), {});
  EXPECT_TRUE(model.informative());
  EXPECT_GT(pairwiseAccuracy(model, task, held), 0.75);
}

TEST(TuneCostModels, DirectoriesForAnotherTargetKindAreRefused) {
  const std::filesystem::path copy = std::filesystem::temp_directory_path() /
                                     ("clustune-gpu-models-" + std::to_string(::getpid()));
  std::filesystem::remove_all(copy);
  std::filesystem::copy(kBundled, copy);
  nlohmann::json meta = nlohmann::json::parse(std::ifstream(copy / "meta.json"));
  meta["target"] = "cuda -arch=sm_90";
  std::ofstream(copy / "meta.json") << meta.dump();
  try {
    tune::loadCostModelDirectory(copy.string(), "znver5");
    ADD_FAILURE() << "a CUDA directory loaded for a CPU run";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("not on CPU (llvm) measurements"), std::string::npos)
        << error.what();
  }
  std::filesystem::remove_all(copy);
}

// A host without bundled models of its own gets those of a CPU with its vector width.
TEST(TuneCostModels, BundledFallbackPrefersTheHostsVectorWidth) {
  const std::filesystem::path root =
      std::filesystem::temp_directory_path() / ("clustune-bundled-" + std::to_string(::getpid()));
  std::filesystem::remove_all(root);
  for (const char* cpu : {"cpu-znver3", "cpu-znver5"}) {
    std::filesystem::create_directories(root / cpu);
    std::ofstream(root / cpu / "meta.json") << "{}";
  }
  ::setenv("CLUSTUNE_COSTMODELS_DIR", root.c_str(), 1);
  EXPECT_EQ(tune::bundledCostModelDirectory("znver3"), (root / "cpu-znver3").string());
  EXPECT_EQ(tune::bundledCostModelDirectory("znver5"), (root / "cpu-znver5").string());
  EXPECT_EQ(tune::bundledCostModelDirectory("haswell"), (root / "cpu-znver3").string());
  EXPECT_EQ(tune::bundledCostModelDirectory("sapphirerapids"), (root / "cpu-znver5").string());
  EXPECT_EQ(tune::bundledCostModelDirectory("znver4"), (root / "cpu-znver5").string());
  EXPECT_EQ(tune::bundledCostModelDirectory("no-such-cpu"), (root / "cpu-znver3").string());
  ::unsetenv("CLUSTUNE_COSTMODELS_DIR");
  std::filesystem::remove_all(root);
}

} // namespace
