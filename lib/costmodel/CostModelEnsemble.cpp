#include "costmodel/CostModelEnsemble.h"

#include "costmodel/MlpCostModelFile.h"
#include "features/ProgramFeatures.h"
#include "support/Error.h"
#include "support/Files.h"
#include "support/Jsonl.h"

#include <cmath>
#include <filesystem>

namespace clustune::costmodel {

std::string clusterModelName(int cluster) {
  return "cluster-" + std::to_string(cluster);
}

CostModelEnsemble CostModelEnsemble::load(const std::string& directory) {
  const std::string metaPath = (std::filesystem::path(directory) / "meta.json").string();
  const ErrorContext context{metaPath};
  CostModelEnsemble ensemble;
  ensemble.meta_ = parseJsonText(readFileBytes(metaPath), context);
  const nlohmann::json& meta = ensemble.meta_;
  // Compared as JSON values, so that a field of another type is a mismatch, not an exception.
  const auto field = [&](const char* key) {
    return meta.is_object() && meta.contains(key) ? meta[key] : nlohmann::json();
  };
  if (field("kind") != "clustune.costmodel")
    throw Error("not a clustune cost-model directory (meta.json lacks \"kind\": "
                "\"clustune.costmodel\")",
                context);
  if (field("v") != kCostModelMetaVersion)
    throw Error("meta.json version " + field("v").dump() + " is not supported (expected " +
                    std::to_string(kCostModelMetaVersion) + ")",
                context);
  if (field("feature_version") != features::kProgramFeatureVersion)
    throw Error("the models were trained on program features of version " +
                    field("feature_version").dump() + ", but this clustune computes version " +
                    std::to_string(features::kProgramFeatureVersion) + ": retrain them",
                context);
  try {
    for (const nlohmann::json& entry : meta.at("models")) {
      const std::string name = entry.at("name").get<std::string>();
      const std::string file = entry.at("file").get<std::string>();
      if (file.find('/') != std::string::npos || file.find("..") != std::string::npos)
        throw Error("model file '" + file + "' must lie in the model directory", context);
      ensemble.models_.emplace(
          name, loadMlpCostModel((std::filesystem::path(directory) / file).string()));
    }
    if (const auto routing = meta.find("routing"); routing != meta.end() && !routing->is_null()) {
      ensemble.assign_ = routing->at("assign").get<std::map<std::string, int>>();
      ensemble.centroids_ = routing->at("centroids").get<std::vector<std::vector<double>>>();
      ensemble.radii_ = routing->at("radii").get<std::vector<double>>();
      ensemble.radiusFactor_ = routing->at("radius_factor").get<double>();
      if (ensemble.radii_.size() != ensemble.centroids_.size())
        throw Error("meta.json routing lists " + std::to_string(ensemble.centroids_.size()) +
                        " centroids but " + std::to_string(ensemble.radii_.size()) + " radii",
                    context);
      for (const auto& centroid : ensemble.centroids_)
        if (centroid.empty() || centroid.size() != ensemble.centroids_.front().size())
          throw Error("meta.json routing has centroids of widths " +
                          std::to_string(ensemble.centroids_.front().size()) + " and " +
                          std::to_string(centroid.size()) + ", not one width of at least 1",
                      context);
    }
  } catch (const nlohmann::json::exception& error) {
    throw Error(std::string("malformed meta.json: ") + error.what(), context);
  }
  if (ensemble.models_.empty())
    throw Error("meta.json lists no model", context);
  return ensemble;
}

const char* routeReasonName(RouteReason reason) {
  switch (reason) {
  case RouteReason::Assigned:
    return "assigned";
  case RouteReason::NearestCentroid:
    return "nearest_centroid";
  case RouteReason::FarFromEveryCluster:
    return "far_from_every_cluster";
  case RouteReason::Unassigned:
    return "unassigned";
  }
  return "unassigned";
}

RouteDecision CostModelEnsemble::decideRoute(const std::string& taskKey,
                                             const std::vector<double>* embedding) const {
  int cluster = -1;
  RouteReason reason = RouteReason::Unassigned;
  if (const auto found = assign_.find(taskKey); found != assign_.end()) {
    cluster = found->second;
    reason = RouteReason::Assigned;
  } else if (embedding && !centroids_.empty()) {
    double best = INFINITY;
    for (std::size_t index = 0; index < centroids_.size(); ++index) {
      if (centroids_[index].size() != embedding->size())
        throw Error("a task embedding of width " + std::to_string(embedding->size()) +
                    " cannot be routed with centroids of width " +
                    std::to_string(centroids_[index].size()));
      double squared = 0;
      for (std::size_t dimension = 0; dimension < embedding->size(); ++dimension) {
        const double difference = (*embedding)[dimension] - centroids_[index][dimension];
        squared += difference * difference;
      }
      if (squared < best) {
        best = squared;
        cluster = static_cast<int>(index);
      }
    }
    reason = RouteReason::NearestCentroid;
    if (cluster >= 0 &&
        std::sqrt(best) > radiusFactor_ * radii_[static_cast<std::size_t>(cluster)]) {
      cluster = -1;
      reason = RouteReason::FarFromEveryCluster;
    }
  }
  if (cluster >= 0 && hasModel(clusterModelName(cluster)))
    return {clusterModelName(cluster), reason};
  if (!hasModel(kGlobalModelName))
    throw Error("no model for task " + taskKey +
                    ": it has no cluster model and the directory has no global model",
                {.task = taskKey});
  return {kGlobalModelName, reason};
}

const MlpCostModel& CostModelEnsemble::model(const std::string& name) const {
  const auto found = models_.find(name);
  if (found == models_.end())
    throw Error("the cost-model directory has no model '" + name + "'");
  return found->second;
}

std::vector<std::string> CostModelEnsemble::modelNames() const {
  std::vector<std::string> names;
  for (const auto& [name, model] : models_)
    names.push_back(name);
  return names;
}

} // namespace clustune::costmodel
