// See LearnedCostModels.h.
#include "tune/LearnedCostModels.h"

#include "gae/EmbedTasks.h"
#include "support/Error.h"
#include "support/Stopwatch.h"
#include "tune/CandidateFeatures.h"

#include <algorithm>
#include <spdlog/spdlog.h>

namespace clustune::tune {
namespace {

std::vector<double> scoresOf(const costmodel::MlpCostModel& model, const graph::Task& task,
                             std::span<const search::Candidate* const> candidates) {
  if (candidates.empty())
    return {};
  const FeatureBatch batch = featurize(task, candidates);
  const nn::Vector scores = model.predict(batch.statements, batch.offsets);
  return std::vector<double>(scores.data(), scores.data() + scores.size());
}

// What is left of `budget` for training after the update's featurisation, as a training time
// limit: 0 (none) without a budget, and a tiny positive limit (one step) once it is spent.
double secondsLeft(search::UpdateBudget budget, SteadyClock::time_point start) {
  if (budget.seconds <= 0)
    return 0;
  return std::max(budget.seconds - secondsSince(start), 1e-9);
}

void logIfCut(const std::string& model, const costmodel::TrainingResult& result,
              search::UpdateBudget budget) {
  if (result.stoppedByTimeLimit)
    spdlog::debug("{}: training stopped after {} steps ({:.3f} s), at the round's update budget "
                  "of {:.3f} s",
                  model, result.batches, result.seconds, budget.seconds);
}

} // namespace

PretrainedCostModel::PretrainedCostModel(const costmodel::CostModelEnsemble& ensemble,
                                         const gae::LoadedGae* gae, Routing routing,
                                         FineTuning fineTuning)
    : ensemble_(ensemble), gae_(gae), routing_(routing), fineTuning_(std::move(fineTuning)) {
  for (const std::string& name : ensemble.modelNames())
    models_.emplace(name, ensemble.model(name));
  if (routing == Routing::Global && !models_.contains(costmodel::kGlobalModelName))
    throw Error("the cost-model directory has no global model, which --mode global needs");
}

const std::string& PretrainedCostModel::modelFor(const graph::Task& task) {
  if (const auto found = routes_.find(task.key); found != routes_.end())
    return found->second;
  std::string name = costmodel::kGlobalModelName;
  if (routing_ == Routing::Cluster && (ensemble_.assigned(task.key) || !gae_)) {
    name = ensemble_.route(task.key);
  } else if (routing_ == Routing::Cluster) {
    const std::vector<cluster::TaskEmbedding> embedding = gae::embedTasks(*gae_, {task});
    name = ensemble_.route(task.key, &embedding.front().embedding);
    embeddingRouted_.insert(task.key);
  }
  spdlog::debug("task {} ({}): scored by {}{}", task.key, task.anchor, name,
                embeddingRouted_.contains(task.key) ? " (routed by its embedding)" : "");
  return routes_.emplace(task.key, std::move(name)).first->second;
}

std::vector<double>
PretrainedCostModel::predict(const graph::Task& task,
                             std::span<const search::Candidate* const> candidates) {
  return scoresOf(models_.at(modelFor(task)), task, candidates);
}

void PretrainedCostModel::update(std::span<const search::Measurement> measurements,
                                 search::UpdateBudget budget) {
  if (!fineTuning_.enabled || measurements.empty())
    return;
  const auto start = SteadyClock::now();
  programs_.add(measurements);
  std::set<std::string> touched;
  for (const search::Measurement& measurement : measurements)
    touched.insert(modelFor(*measurement.task));
  for (const std::string& name : touched) {
    const costmodel::ProgramDataset data = programs_.dataset([&](const std::string& key) {
      const auto route = routes_.find(key);
      return route != routes_.end() && route->second == name;
    });
    costmodel::TrainingOptions options = fineTuning_.training;
    options.seed += static_cast<std::uint64_t>(updates_);
    options.secondsLimit = secondsLeft(budget, start);
    logIfCut(name, costmodel::trainMlp(models_.at(name), data, {}, options), budget);
  }
  ++updates_;
}

OnlineCostModel::OnlineCostModel(std::uint64_t seed, OnlineTraining options)
    : seed_(seed), options_(std::move(options)) {}

std::vector<double> OnlineCostModel::predict(const graph::Task& task,
                                             std::span<const search::Candidate* const> candidates) {
  if (!model_)
    return std::vector<double>(candidates.size(), 0.0);
  return scoresOf(*model_, task, candidates);
}

void OnlineCostModel::update(std::span<const search::Measurement> measurements,
                             search::UpdateBudget budget) {
  if (measurements.empty())
    return;
  const auto start = SteadyClock::now();
  programs_.add(measurements);
  // Retrained from scratch on everything measured so far, as Ansor retrains its XGBoost model.
  costmodel::MlpCostModel model({.features = static_cast<int>(costmodel::kStatementFeatureCount)},
                                seed_);
  costmodel::TrainingOptions options = options_.training;
  options.seed = seed_ + static_cast<std::uint64_t>(updates_);
  const costmodel::ProgramDataset data = programs_.dataset();
  options.secondsLimit = secondsLeft(budget, start);
  logIfCut("online", costmodel::trainMlp(model, data, {}, options), budget);
  model_ = std::move(model);
  ++updates_;
}

} // namespace clustune::tune
