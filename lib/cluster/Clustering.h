// What clustune-cluster does, as library calls: K-means over task embeddings (K given or chosen
// by the mean silhouette), the anchor-op grouping that FamilySeer uses as a baseline, and the
// assignment of new embeddings to the nearest centroid, flagging those too far from it to
// trust the cluster's cost model.
#pragma once

#include "cluster/ClusterFile.h"
#include "cluster/EmbeddingFile.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace clustune::cluster {

// An embedding farther than this many radii from its nearest centroid is flagged as far from
// every cluster; the cost-model ensemble then uses the global model for it.
inline constexpr double kFarRadiusFactor = 1.5;

struct ClusteringOptions {
  int k = 0; // 0: choose K in [minK, maxK] by the best mean silhouette
  int minK = 2;
  int maxK = 16;
  int restarts = 10;
  std::uint64_t seed = 0;
};

struct ClusteringResult {
  ClusterFile clusters;
  std::vector<std::pair<int, double>> silhouettes; // (k, mean silhouette) per k tried
  double inertia = 0;
};

ClusteringResult clusterEmbeddings(const std::vector<TaskEmbedding>& embeddings,
                                   const ClusteringOptions& options);

// One cluster per anchor op (in name order); centroids are the members' means, and the
// silhouette is measured in the embedding space, so groupings compare on one scale.
ClusteringResult clusterByAnchor(const std::vector<TaskEmbedding>& embeddings);

// The control that per-cluster cost models must beat: the tasks of `embeddings` dealt at random
// into clusters of the sizes they have in `reference`, so that only what the clustering put
// together differs. Every task must be assigned in `reference`; clusters that none of these
// tasks is in are left out and the rest renumbered in order. Centroids are the members' means.
ClusteringResult clusterAtRandom(const std::vector<TaskEmbedding>& embeddings,
                                 const ClusterFile& reference, std::uint64_t seed);

struct Assignment {
  std::string key;
  int cluster = -1;
  double distance = 0;
  bool far = false; // distance > kFarRadiusFactor × the cluster's radius
};
std::vector<Assignment> assignEmbeddings(const ClusterFile& clusters,
                                         const std::vector<TaskEmbedding>& embeddings);

} // namespace clustune::cluster
