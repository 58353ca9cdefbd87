// clusters.json (DESIGN §8, docs/formats.md): K-means centroids over task embeddings, each
// training task's cluster, and per cluster its size, radius and the anchor ops of its tasks.
// clustune-cluster writes it; clustune-train reads it to train one cost model per cluster, and
// the ensemble uses centroids and radii to route tasks it never saw.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace clustune::cluster {

inline constexpr int kClusterFileVersion = 1;

struct ClusterInfo {
  int size = 0;
  double radius = 0; // largest distance from the centroid to one of its tasks' embeddings
  std::map<std::string, int> anchors = {}; // anchor op -> number of tasks
};

struct ClusterFile {
  int k = 0;
  double silhouette = 0;
  std::vector<std::vector<double>> centroids = {}; // k rows of the embedding width
  std::map<std::string, int> assign = {};          // task key -> cluster
  std::vector<ClusterInfo> clusters = {};          // k entries, or empty when not recorded
};

// Validates every field (k matches the centroids, assignments in range, equal widths) and
// throws clustune::Error naming the file.
ClusterFile readClusterFile(const std::string& path);
void writeClusterFile(const std::string& path, const ClusterFile& clusters);

// The nearest centroid to `embedding` and its Euclidean distance.
struct NearestCluster {
  int cluster = -1;
  double distance = 0;
};
NearestCluster nearestCluster(const ClusterFile& clusters, const std::vector<double>& embedding);

} // namespace clustune::cluster
