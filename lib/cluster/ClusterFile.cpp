#include "cluster/ClusterFile.h"

#include "support/Error.h"
#include "support/Files.h"
#include "support/Jsonl.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

namespace clustune::cluster {
ClusterFile readClusterFile(const std::string& path) {
  const ErrorContext context{displayPath(path)};
  const nlohmann::json entry = parseJsonText(readFileBytes(path), context);
  if (!entry.is_object())
    throw Error("a clusters file is one JSON object", context);
  const int version = requireField<int>(entry, "v", context);
  if (version != kClusterFileVersion)
    throw Error("clusters file version " + std::to_string(version) +
                    " is not supported (expected " + std::to_string(kClusterFileVersion) + ")",
                context);
  ClusterFile clusters;
  clusters.k = requireField<int>(entry, "k", context);
  clusters.silhouette = requireField<double>(entry, "silhouette", context);
  clusters.centroids = requireField<std::vector<std::vector<double>>>(entry, "centroids", context);
  clusters.assign = requireField<std::map<std::string, int>>(entry, "assign", context);
  if (clusters.k < 1 || static_cast<int>(clusters.centroids.size()) != clusters.k)
    throw Error("clusters file has k = " + std::to_string(clusters.k) + " but " +
                    std::to_string(clusters.centroids.size()) + " centroids",
                context);
  for (const std::vector<double>& centroid : clusters.centroids)
    if (centroid.empty() || centroid.size() != clusters.centroids[0].size())
      throw Error("clusters file centroids differ in width", context);
  for (const auto& [key, cluster] : clusters.assign)
    if (cluster < 0 || cluster >= clusters.k)
      throw Error("task " + key + " is assigned to cluster " + std::to_string(cluster) +
                      ", outside 0.." + std::to_string(clusters.k - 1),
                  context);
  if (const auto found = entry.find("clusters"); found != entry.end()) {
    if (!found->is_array() || static_cast<int>(found->size()) != clusters.k)
      throw Error("clusters file field 'clusters' must list the k clusters", context);
    for (const nlohmann::json& item : *found) {
      ClusterInfo info;
      info.size = requireField<int>(item, "size", context);
      info.radius = requireField<double>(item, "radius", context);
      info.anchors = requireField<std::map<std::string, int>>(item, "anchors", context);
      clusters.clusters.push_back(info);
    }
  }
  return clusters;
}

void writeClusterFile(const std::string& path, const ClusterFile& clusters) {
  nlohmann::ordered_json entry;
  entry["v"] = kClusterFileVersion;
  entry["k"] = clusters.k;
  entry["silhouette"] = clusters.silhouette;
  entry["centroids"] = clusters.centroids;
  entry["assign"] = clusters.assign;
  if (!clusters.clusters.empty()) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (std::size_t cluster = 0; cluster < clusters.clusters.size(); ++cluster) {
      const ClusterInfo& info = clusters.clusters[cluster];
      list.push_back({{"id", cluster},
                      {"size", info.size},
                      {"radius", info.radius},
                      {"anchors", info.anchors}});
    }
    entry["clusters"] = list;
  }
  OutputFile output(path);
  output.stream() << entry.dump() << '\n';
  output.commit();
}

NearestCluster nearestCluster(const ClusterFile& clusters, const std::vector<double>& embedding) {
  NearestCluster nearest;
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t cluster = 0; cluster < clusters.centroids.size(); ++cluster) {
    const std::vector<double>& centroid = clusters.centroids[cluster];
    if (centroid.size() != embedding.size())
      throw Error("an embedding of width " + std::to_string(embedding.size()) +
                  " cannot be compared with centroids of width " + std::to_string(centroid.size()));
    double squared = 0;
    for (std::size_t dimension = 0; dimension < centroid.size(); ++dimension)
      squared += (centroid[dimension] - embedding[dimension]) *
                 (centroid[dimension] - embedding[dimension]);
    if (squared < best) {
      best = squared;
      nearest.cluster = static_cast<int>(cluster);
    }
  }
  nearest.distance = std::sqrt(best);
  return nearest;
}

} // namespace clustune::cluster
