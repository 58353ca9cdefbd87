// The learned cost models of the tuner (DESIGN §7, the --mode flag of clustune-tune), each a
// search::CostModel over Tenset's MLP (lib/costmodel):
//   - PretrainedCostModel, routing Cluster: the paper's method. Each task is scored by its
//     cluster's MLP from a cost-model directory; a task the directory does not assign is routed
//     by its GAE embedding to the nearest centroid, and to the global MLP when it lies far from
//     every cluster (the novelty fallback) or its cluster has no model;
//   - PretrainedCostModel, routing Global: Tenset's single MLP for every task;
//   - OnlineCostModel: Ansor's way, an MLP trained from scratch on this run's measurements
//     only, retrained after every round.
// A pretrained model, unless frozen, is fine-tuned after every round on the run's own
// measurements of the tasks it scores, starting from its current weights and keeping the
// feature scale its weights were trained with. Both kinds stop training when the round's
// search::UpdateBudget is spent.
#pragma once

#include "costmodel/CostModelEnsemble.h"
#include "costmodel/Training.h"
#include "gae/GaeModelFile.h"
#include "search/CostModel.h"
#include "tune/MeasuredPrograms.h"

#include <map>
#include <optional>
#include <set>
#include <string>

namespace clustune::tune {

enum class Routing { Cluster, Global };

struct FineTuning {
  bool enabled = true;
  costmodel::TrainingOptions training = {.epochs = 10, .patience = 0, .fitFeatureScale = false};
};

class PretrainedCostModel final : public search::CostModel {
public:
  // `gae` embeds tasks the ensemble does not assign (nullptr: they use the global model).
  PretrainedCostModel(const costmodel::CostModelEnsemble& ensemble, const gae::LoadedGae* gae,
                      Routing routing, FineTuning fineTuning);

  std::vector<double> predict(const graph::Task& task,
                              std::span<const search::Candidate* const> candidates) override;
  void update(std::span<const search::Measurement> measurements,
              search::UpdateBudget budget) override;
  std::string name() const override { return routing_ == Routing::Cluster ? "cluster" : "global"; }

  // The name of the model that scores `task` ("global" or "cluster-<i>"), and whether it was
  // routed by its embedding (the directory does not assign it).
  const std::string& modelFor(const graph::Task& task);
  bool routedByEmbedding(const std::string& taskKey) const {
    return embeddingRouted_.contains(taskKey);
  }

private:
  const costmodel::CostModelEnsemble& ensemble_;
  const gae::LoadedGae* gae_;
  Routing routing_;
  FineTuning fineTuning_;
  std::map<std::string, costmodel::MlpCostModel> models_; // copies, fine-tuned in place
  std::map<std::string, std::string> routes_;             // task key -> model name
  std::set<std::string> embeddingRouted_;
  MeasuredPrograms programs_;
  int updates_ = 0;
};

struct OnlineTraining {
  costmodel::TrainingOptions training = {.epochs = 30, .patience = 0};
};

class OnlineCostModel final : public search::CostModel {
public:
  OnlineCostModel(std::uint64_t seed, OnlineTraining options);

  // Before any measurement every candidate scores 0, so the first round is chosen at random.
  std::vector<double> predict(const graph::Task& task,
                              std::span<const search::Candidate* const> candidates) override;
  void update(std::span<const search::Measurement> measurements,
              search::UpdateBudget budget) override;
  // Uninformed until the first update: evolution then searches as with the random model.
  bool informative() const override { return model_.has_value(); }
  std::string name() const override { return "online"; }

private:
  std::uint64_t seed_;
  OnlineTraining options_;
  std::optional<costmodel::MlpCostModel> model_;
  MeasuredPrograms programs_;
  int updates_ = 0;
};

} // namespace clustune::tune
