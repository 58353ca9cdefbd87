// See Silhouette.h; docs/clustering.md gives the definition with the tests that check it.
#include "cluster/Silhouette.h"

#include "support/Error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>

namespace clustune::cluster {

std::vector<double> silhouetteValues(const PointMatrix& points,
                                     const std::vector<int>& assignment) {
  if (assignment.size() != std::size_t(points.rows()))
    throw Error("an assignment of " + std::to_string(assignment.size()) + " entries for " +
                std::to_string(points.rows()) + " points");
  if (points.rows() < 2)
    throw Error("the silhouette needs at least 2 points (got " + std::to_string(points.rows()) +
                ")");
  if (std::any_of(assignment.begin(), assignment.end(), [](int label) { return label < 0; }))
    throw Error("the silhouette needs non-negative cluster labels");
  // Labels need not be contiguous: number the non-empty clusters 0, 1, ... in label order.
  std::vector<int> labels = assignment;
  std::sort(labels.begin(), labels.end());
  labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
  if (labels.size() < 2)
    throw Error("the silhouette needs at least 2 non-empty clusters (got " +
                std::to_string(labels.size()) + ")");
  std::vector<int> cluster(assignment.size());
  std::vector<int> sizes(labels.size(), 0);
  for (std::size_t point = 0; point < assignment.size(); ++point) {
    cluster[point] = static_cast<int>(
        std::lower_bound(labels.begin(), labels.end(), assignment[point]) - labels.begin());
    ++sizes[cluster[point]];
  }

  std::vector<double> values(assignment.size(), 0.0);
  std::vector<double> distanceSum(labels.size());
  for (Eigen::Index point = 0; point < points.rows(); ++point) {
    const int own = cluster[point];
    if (sizes[own] == 1)
      continue; // a point alone in its cluster has s = 0
    std::fill(distanceSum.begin(), distanceSum.end(), 0.0);
    for (Eigen::Index other = 0; other < points.rows(); ++other)
      distanceSum[cluster[other]] += (points.row(point) - points.row(other)).norm();
    const double inside = distanceSum[own] / double(sizes[own] - 1); // its own distance is 0
    double nearestOutside = std::numeric_limits<double>::infinity();
    for (std::size_t candidate = 0; candidate < labels.size(); ++candidate)
      if (int(candidate) != own)
        nearestOutside =
            std::min(nearestOutside, distanceSum[candidate] / double(sizes[candidate]));
    const double scale = std::max(inside, nearestOutside);
    values[point] = scale > 0 ? (nearestOutside - inside) / scale : 0.0;
  }
  return values;
}

double meanSilhouette(const PointMatrix& points, const std::vector<int>& assignment) {
  const std::vector<double> values = silhouetteValues(points, assignment);
  double sum = 0;
  for (double value : values)
    sum += value;
  return sum / double(values.size());
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
  double bestSilhouette = -std::numeric_limits<double>::infinity();
  for (int k = minK; k <= largestK; ++k) {
    options.k = k;
    KMeansResult result = kMeans(points, options);
    // With fewer distinct points than k, K-means can leave clusters empty; a partition with
    // one non-empty cluster separates nothing, so it scores 0 rather than failing the choice.
    const std::set<int> used(result.assignment.begin(), result.assignment.end());
    const double silhouette = used.size() >= 2 ? meanSilhouette(points, result.assignment) : 0.0;
    selection.silhouettes.emplace_back(k, silhouette);
    if (silhouette > bestSilhouette) { // strict: ties keep the smaller k
      bestSilhouette = silhouette;
      selection.bestK = k;
      selection.best = std::move(result);
    }
  }
  return selection;
}

} // namespace clustune::cluster
