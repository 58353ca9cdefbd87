// A cost-model directory (docs/formats.md "cost models"): global.onnx, cluster-<i>.onnx and
// meta.json, loaded as an ensemble that routes each task to its cluster's model and falls back
// to the global model for a task that is unassigned, whose cluster has no model, or whose
// embedding lies farther than radius_factor × the cluster's radius from every centroid.
#pragma once

#include "cluster/Clustering.h"
#include "costmodel/MlpCostModel.h"

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace clustune::costmodel {

inline constexpr int kCostModelMetaVersion = 1;
inline constexpr const char* kGlobalModelName = "global";
// Tasks farther out than this many radii of their nearest cluster get the global model, the
// same rule by which clustune-cluster --assign flags them: clustering assigns every training
// task, so only unseen tasks can fall outside.
inline constexpr double kDefaultRoutingRadiusFactor = cluster::kFarRadiusFactor;

std::string clusterModelName(int cluster); // "cluster-<i>"

enum class RouteReason {
  Assigned,            // the clustering saw the task
  NearestCentroid,     // an unseen task, routed by its embedding
  FarFromEveryCluster, // an unseen task beyond radius_factor × its nearest cluster's radius
  Unassigned,          // an unseen task without an embedding, or a directory without routing
};
const char* routeReasonName(RouteReason reason);

struct RouteDecision {
  std::string model;
  RouteReason reason = RouteReason::Unassigned;
};

class CostModelEnsemble {
public:
  // Reads meta.json and every model it lists. Throws clustune::Error naming the file for a
  // missing or foreign file or a feature-version mismatch.
  static CostModelEnsemble load(const std::string& directory);

  // The name of the model that scores `taskKey` ("global" or "cluster-<i>"). `embedding`, when
  // given, routes a task that meta.json does not assign.
  std::string route(const std::string& taskKey,
                    const std::vector<double>* embedding = nullptr) const {
    return decideRoute(taskKey, embedding).model;
  }
  // route(), with how it decided: evaluations report how often unseen tasks fell back.
  RouteDecision decideRoute(const std::string& taskKey,
                            const std::vector<double>* embedding = nullptr) const;
  // Whether meta.json assigns `taskKey` to a cluster (the clustering saw the task).
  bool assigned(const std::string& taskKey) const { return assign_.contains(taskKey); }
  // The embedding width the routing centroids expect; 0 without routing centroids.
  std::size_t routingWidth() const { return centroids_.empty() ? 0 : centroids_.front().size(); }
  const MlpCostModel& model(const std::string& name) const;
  bool hasModel(const std::string& name) const { return models_.count(name) > 0; }
  std::vector<std::string> modelNames() const;
  const nlohmann::json& meta() const { return meta_; }

private:
  nlohmann::json meta_;
  std::map<std::string, MlpCostModel> models_;
  std::map<std::string, int> assign_;
  std::vector<std::vector<double>> centroids_;
  std::vector<double> radii_;
  double radiusFactor_ = kDefaultRoutingRadiusFactor;
};

} // namespace clustune::costmodel
