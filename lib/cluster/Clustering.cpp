#include "cluster/Clustering.h"

#include "cluster/KMeans.h"
#include "cluster/Silhouette.h"
#include "support/Error.h"
#include "support/Random.h"

#include <map>
#include <set>

namespace clustune::cluster {
namespace {

PointMatrix pointMatrix(const std::vector<TaskEmbedding>& embeddings) {
  PointMatrix points(static_cast<Eigen::Index>(embeddings.size()),
                     static_cast<Eigen::Index>(embeddings.at(0).embedding.size()));
  for (std::size_t row = 0; row < embeddings.size(); ++row)
    for (std::size_t column = 0; column < embeddings[row].embedding.size(); ++column)
      points(static_cast<Eigen::Index>(row), static_cast<Eigen::Index>(column)) =
          embeddings[row].embedding[column];
  return points;
}

// The clusters.json content of a partition: assignment, sizes, radii and anchor counts.
ClusterFile describe(const std::vector<TaskEmbedding>& embeddings, const PointMatrix& points,
                     const PointMatrix& centroids, const std::vector<int>& assignment) {
  ClusterFile file;
  file.k = static_cast<int>(centroids.rows());
  for (Eigen::Index cluster = 0; cluster < centroids.rows(); ++cluster) {
    std::vector<double>& centroid = file.centroids.emplace_back();
    for (Eigen::Index column = 0; column < centroids.cols(); ++column)
      centroid.push_back(centroids(cluster, column));
  }
  const std::vector<double> radii = clusterRadii(points, centroids, assignment);
  file.clusters.resize(static_cast<std::size_t>(file.k));
  for (std::size_t index = 0; index < embeddings.size(); ++index) {
    const int cluster = assignment[index];
    file.assign[embeddings[index].key] = cluster;
    ClusterInfo& info = file.clusters[static_cast<std::size_t>(cluster)];
    ++info.size;
    if (!embeddings[index].anchor.empty()) // anchors are optional in embeddings.jsonl
      ++info.anchors[embeddings[index].anchor];
  }
  for (std::size_t cluster = 0; cluster < file.clusters.size(); ++cluster)
    file.clusters[cluster].radius = radii[cluster];
  std::set<int> used(assignment.begin(), assignment.end());
  file.silhouette =
      used.size() >= 2 && embeddings.size() >= 2 ? meanSilhouette(points, assignment) : 0.0;
  return file;
}

// A partition given by its assignment, with the members' means as centroids.
ClusteringResult partitionByMeans(const std::vector<TaskEmbedding>& embeddings,
                                  const std::vector<int>& assignment, int k) {
  const PointMatrix points = pointMatrix(embeddings);
  PointMatrix centroids = PointMatrix::Zero(k, points.cols());
  std::vector<int> sizes(static_cast<std::size_t>(k), 0);
  for (std::size_t index = 0; index < embeddings.size(); ++index) {
    centroids.row(assignment[index]) += points.row(static_cast<Eigen::Index>(index));
    ++sizes[static_cast<std::size_t>(assignment[index])];
  }
  for (int cluster = 0; cluster < k; ++cluster)
    centroids.row(cluster) /= sizes[static_cast<std::size_t>(cluster)];
  ClusteringResult result;
  result.clusters = describe(embeddings, points, centroids, assignment);
  result.silhouettes = {{k, result.clusters.silhouette}};
  for (std::size_t index = 0; index < embeddings.size(); ++index)
    result.inertia +=
        (points.row(static_cast<Eigen::Index>(index)) - centroids.row(assignment[index]))
            .squaredNorm();
  return result;
}

} // namespace

ClusteringResult clusterEmbeddings(const std::vector<TaskEmbedding>& embeddings,
                                   const ClusteringOptions& options) {
  if (embeddings.empty())
    throw Error("no embeddings to cluster");
  const PointMatrix points = pointMatrix(embeddings);
  KMeansOptions kMeansOptions;
  kMeansOptions.restarts = options.restarts;
  kMeansOptions.seed = options.seed;
  ClusteringResult result;
  KMeansResult best;
  if (options.k > 0) {
    if (options.k > static_cast<int>(embeddings.size()))
      throw Error("--k " + std::to_string(options.k) + " exceeds the " +
                  std::to_string(embeddings.size()) + " embeddings");
    kMeansOptions.k = options.k;
    best = kMeans(points, kMeansOptions);
  } else {
    const KSelection selection =
        chooseKBySilhouette(points, options.minK, options.maxK, kMeansOptions);
    best = selection.best;
    result.silhouettes = selection.silhouettes;
  }
  result.clusters = describe(embeddings, points, best.centroids, best.assignment);
  if (options.k > 0)
    result.silhouettes = {{options.k, result.clusters.silhouette}};
  result.inertia = best.inertia;
  return result;
}

ClusteringResult clusterByAnchor(const std::vector<TaskEmbedding>& embeddings) {
  if (embeddings.empty())
    throw Error("no embeddings to cluster");
  std::map<std::string, int> anchorCluster;
  for (const TaskEmbedding& embedding : embeddings)
    anchorCluster.emplace(embedding.anchor, 0);
  int next = 0;
  for (auto& [anchor, cluster] : anchorCluster)
    cluster = next++;
  std::vector<int> assignment;
  for (const TaskEmbedding& embedding : embeddings)
    assignment.push_back(anchorCluster.at(embedding.anchor));
  return partitionByMeans(embeddings, assignment, next);
}

ClusteringResult clusterAtRandom(const std::vector<TaskEmbedding>& embeddings,
                                 const ClusterFile& reference, std::uint64_t seed) {
  if (embeddings.empty())
    throw Error("no embeddings to cluster");
  std::vector<int> assignment;
  for (const TaskEmbedding& embedding : embeddings) {
    const auto found = reference.assign.find(embedding.key);
    if (found == reference.assign.end())
      throw Error("no cluster in the reference clustering, so no size to draw it into",
                  {.task = embedding.key});
    assignment.push_back(found->second);
  }
  // Renumbered in order of the reference's cluster numbers, leaving out clusters without tasks.
  std::map<int, int> renumbered;
  for (int cluster : assignment)
    renumbered.emplace(cluster, 0);
  int next = 0;
  for (auto& [cluster, number] : renumbered)
    number = next++;
  for (int& cluster : assignment)
    cluster = renumbered.at(cluster);
  Rng(seed).shuffle(assignment);
  return partitionByMeans(embeddings, assignment, next);
}

std::vector<Assignment> assignEmbeddings(const ClusterFile& clusters,
                                         const std::vector<TaskEmbedding>& embeddings) {
  std::vector<Assignment> assignments;
  for (const TaskEmbedding& embedding : embeddings) {
    const NearestCluster nearest = nearestCluster(clusters, embedding.embedding);
    Assignment assignment{embedding.key, nearest.cluster, nearest.distance, false};
    if (!clusters.clusters.empty())
      assignment.far =
          nearest.distance >
          kFarRadiusFactor * clusters.clusters[static_cast<std::size_t>(nearest.cluster)].radius;
    assignments.push_back(assignment);
  }
  return assignments;
}

} // namespace clustune::cluster
