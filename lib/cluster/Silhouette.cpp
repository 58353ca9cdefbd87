// See Silhouette.h; docs/clustering.md gives the definition with the tests that check it.
#include "cluster/Silhouette.h"

#include "runtime/ThreadPool.h"
#include "support/Error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>

namespace clustune::cluster {

namespace {

// One partition with its clusters numbered 0, 1, ... in label order (labels need not be
// contiguous), and where its clusters start among the columns of the membership matrix.
struct NumberedPartition {
  std::vector<int> cluster;
  std::vector<int> sizes;
  Eigen::Index firstColumn = 0;
};

NumberedPartition numberClusters(const PointMatrix& points, const std::vector<int>& assignment) {
  if (assignment.size() != std::size_t(points.rows()))
    throw Error("an assignment of " + std::to_string(assignment.size()) + " entries for " +
                std::to_string(points.rows()) + " points");
  if (points.rows() < 2)
    throw Error("the silhouette needs at least 2 points (got " + std::to_string(points.rows()) +
                ")");
  if (std::any_of(assignment.begin(), assignment.end(), [](int label) { return label < 0; }))
    throw Error("the silhouette needs non-negative cluster labels");
  std::vector<int> labels = assignment;
  std::sort(labels.begin(), labels.end());
  labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
  if (labels.size() < 2)
    throw Error("the silhouette needs at least 2 non-empty clusters (got " +
                std::to_string(labels.size()) + ")");
  NumberedPartition partition;
  partition.cluster.resize(assignment.size());
  partition.sizes.assign(labels.size(), 0);
  for (std::size_t point = 0; point < assignment.size(); ++point) {
    partition.cluster[point] = static_cast<int>(
        std::lower_bound(labels.begin(), labels.end(), assignment[point]) - labels.begin());
    ++partition.sizes[partition.cluster[point]];
  }
  return partition;
}

// Rows of points per block: a block's distances (rows × points doubles) stay a few MiB.
constexpr Eigen::Index kRowsPerBlock = 128;

// Silhouette values of every partition. The point-to-point distances, the whole cost, are
// computed once for all partitions, a block of rows at a time on the thread pool; each block's
// distances times the one-hot membership of every cluster of every partition give each point's
// summed distance to each cluster. Blocks are fixed, so results do not depend on thread count.
std::vector<std::vector<double>> silhouetteValuesOf(const PointMatrix& points,
                                                    std::vector<NumberedPartition>& partitions) {
  using RowMajor = PointMatrix;
  const Eigen::Index count = points.rows();
  const PointMatrix& rows = points;
  Eigen::Index columns = 0;
  for (NumberedPartition& partition : partitions) {
    partition.firstColumn = columns;
    columns += static_cast<Eigen::Index>(partition.sizes.size());
  }
  RowMajor membership = RowMajor::Zero(count, columns);
  for (const NumberedPartition& partition : partitions)
    for (Eigen::Index point = 0; point < count; ++point)
      membership(point, partition.firstColumn + partition.cluster[point]) = 1.0;

  std::vector<std::vector<double>> values(partitions.size(),
                                          std::vector<double>(std::size_t(count), 0.0));
  const Eigen::Index blocks = (count + kRowsPerBlock - 1) / kRowsPerBlock;
  runtime::ThreadPool::global().parallelFor(blocks, [&](std::int64_t first, std::int64_t last) {
    RowMajor distances, sums;
    for (std::int64_t block = first; block < last; ++block) {
      const Eigen::Index begin = block * kRowsPerBlock;
      const Eigen::Index size = std::min(kRowsPerBlock, count - begin);
      distances.resize(size, count);
      for (Eigen::Index row = 0; row < size; ++row)
        distances.row(row) = (rows.rowwise() - rows.row(begin + row)).rowwise().norm().transpose();
      sums.noalias() = distances * membership;
      for (std::size_t index = 0; index < partitions.size(); ++index) {
        const NumberedPartition& partition = partitions[index];
        for (Eigen::Index row = 0; row < size; ++row) {
          const Eigen::Index point = begin + row;
          const int own = partition.cluster[point];
          if (partition.sizes[own] == 1)
            continue; // a point alone in its cluster has s = 0
          const auto sum = [&](std::size_t cluster) {
            return sums(row, partition.firstColumn + Eigen::Index(cluster));
          };
          const double inside = sum(own) / double(partition.sizes[own] - 1); // d(i, i) = 0
          double nearestOutside = std::numeric_limits<double>::infinity();
          for (std::size_t cluster = 0; cluster < partition.sizes.size(); ++cluster)
            if (int(cluster) != own)
              nearestOutside = std::min(nearestOutside, sum(cluster) / partition.sizes[cluster]);
          const double scale = std::max(inside, nearestOutside);
          values[index][point] = scale > 0 ? (nearestOutside - inside) / scale : 0.0;
        }
      }
    }
  });
  return values;
}

double mean(const std::vector<double>& values) {
  double sum = 0;
  for (double value : values)
    sum += value;
  return sum / double(values.size());
}

} // namespace

std::vector<double> silhouetteValues(const PointMatrix& points,
                                     const std::vector<int>& assignment) {
  std::vector<NumberedPartition> partitions = {numberClusters(points, assignment)};
  return silhouetteValuesOf(points, partitions).front();
}

double meanSilhouette(const PointMatrix& points, const std::vector<int>& assignment) {
  return mean(silhouetteValues(points, assignment));
}

KSelection chooseKBySilhouette(const PointMatrix& points, int minK, int maxK,
                               KMeansOptions options) {
  if (minK < 2)
    throw Error("choosing k by the silhouette needs k >= 2 (got a minimum of " +
                std::to_string(minK) + ")");
  if (minK > maxK)
    throw Error("choosing k by the silhouette needs minK <= maxK (got " + std::to_string(minK) +
                " > " + std::to_string(maxK) + ")");
  const auto largestK = static_cast<int>(std::min<Eigen::Index>(maxK, points.rows() - 1));
  if (minK > largestK)
    throw Error("choosing k by the silhouette needs more than " + std::to_string(minK) +
                " points (got " + std::to_string(points.rows()) + ")");
  KSelection selection;
  std::vector<KMeansResult> results;
  std::vector<NumberedPartition> partitions;
  std::vector<std::size_t> partitionOf; // per k: its partition, or npos with one cluster
  for (int k = minK; k <= largestK; ++k) {
    options.k = k;
    results.push_back(kMeans(points, options));
    // With fewer distinct points than k, K-means can leave clusters empty; a partition with
    // one non-empty cluster separates nothing, so it scores 0 rather than failing the choice.
    const std::vector<int>& assignment = results.back().assignment;
    const std::set<int> used(assignment.begin(), assignment.end());
    partitionOf.push_back(used.size() >= 2 ? partitions.size() : std::string::npos);
    if (used.size() >= 2)
      partitions.push_back(numberClusters(points, assignment));
  }
  const std::vector<std::vector<double>> values = silhouetteValuesOf(points, partitions);
  double bestSilhouette = -std::numeric_limits<double>::infinity();
  for (int k = minK; k <= largestK; ++k) {
    const std::size_t index = std::size_t(k - minK);
    const double silhouette =
        partitionOf[index] == std::string::npos ? 0.0 : mean(values[partitionOf[index]]);
    selection.silhouettes.emplace_back(k, silhouette);
    if (silhouette > bestSilhouette) { // strict: ties keep the smaller k
      bestSilhouette = silhouette;
      selection.bestK = k;
      selection.best = std::move(results[index]);
    }
  }
  return selection;
}

} // namespace clustune::cluster
