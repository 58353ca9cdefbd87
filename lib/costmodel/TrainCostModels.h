// What clustune-train does, as a library call: read tasks and records, featurise them, hold out
// a corpus model if asked, train the global model and/or one model per cluster (from scratch or
// fine-tuned from the global one) and write the cost-model directory with its meta.json.
#pragma once

#include "costmodel/Training.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace clustune::costmodel {

enum class TrainMode { Global, Cluster, Both };
enum class ClusterInit { Scratch, Global };
TrainMode trainModeFromName(const std::string& name);     // global, cluster, both
ClusterInit clusterInitFromName(const std::string& name); // scratch, global

struct TrainRequest {
  std::vector<std::string> recordFiles = {};
  std::string taskFile = {};
  std::string clusterFile = {}; // empty: no clusters
  TrainMode mode = TrainMode::Global;
  ClusterInit clusterInit = ClusterInit::Global;
  std::string holdoutModel = {}; // empty: train on every task
  // A cost-model directory whose global model is taken as it is instead of trained: the
  // per-cluster models are fine-tuned from it. It must hold out the same model and have the
  // same architecture, so that one global training serves several clusterings of a fold.
  std::string globalFrom = {};
  double validationFraction = 0.1;
  // A cluster with fewer training programs than this gets no model (its tasks use the global
  // model).
  std::size_t minimumClusterPrograms = 64;
  TrainingOptions training = {};
  // Width and depth of every model trained; the feature count is the featuriser's.
  int hidden = MlpArchitecture{}.hidden;
  int residualBlocks = MlpArchitecture{}.residualBlocks;
  std::string outputDirectory = {};
};

// Trains, writes the directory and returns the content of its meta.json.
nlohmann::ordered_json trainCostModels(const TrainRequest& request);

} // namespace clustune::costmodel
