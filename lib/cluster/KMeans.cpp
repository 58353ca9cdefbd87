// See KMeans.h; docs/clustering.md gives each rule with the test that checks it.
#include "cluster/KMeans.h"

#include "support/Error.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numeric>
#include <string>

namespace clustune::cluster {
namespace {

double squaredDistance(const PointMatrix& points, Eigen::Index point, const PointMatrix& centres,
                       Eigen::Index centre) {
  return (points.row(point) - centres.row(centre)).squaredNorm();
}

void checkPoints(const PointMatrix& points) {
  if (points.rows() == 0)
    throw Error("k-means needs at least one point");
  if (!points.allFinite())
    throw Error("k-means needs finite coordinates, and a point has a NaN or infinite one");
}

void checkClusterCount(const PointMatrix& points, int k) {
  if (k < 1)
    throw Error("k-means needs k >= 1 (got " + std::to_string(k) + ")");
  if (k > points.rows())
    throw Error("k-means cannot make " + std::to_string(k) + " clusters of " +
                std::to_string(points.rows()) + " points");
}

void checkIterationOptions(const KMeansOptions& options) {
  if (options.maxIterations < 1)
    throw Error("k-means needs at least one iteration (got " +
                std::to_string(options.maxIterations) + ")");
  if (!(options.tolerance >= 0))
    throw Error("k-means needs a non-negative tolerance");
}

// scikit-learn's _tolerance: the relative tolerance scaled by the mean over dimensions of the
// (population) variance, so that it does not depend on the units of the embedding.
double absoluteTolerance(const PointMatrix& points, double tolerance) {
  const Eigen::RowVectorXd mean = points.colwise().mean();
  const Eigen::RowVectorXd variance =
      (points.rowwise() - mean).array().square().colwise().sum() / double(points.rows());
  return tolerance * variance.mean();
}

// A point drawn with probability ∝ weight; uniformly when every weight is 0 (every point sits on
// a centre already, as happens with fewer distinct points than k).
Eigen::Index drawByWeight(const std::vector<double>& cumulativeWeight, Rng& rng) {
  const auto count = static_cast<std::uint64_t>(cumulativeWeight.size());
  const double total = cumulativeWeight.back();
  if (!(total > 0))
    return static_cast<Eigen::Index>(rng.uniformInt(count));
  // The first point whose cumulative weight exceeds the draw: never a zero-weight point.
  const double target = rng.uniform() * total;
  const auto found = std::upper_bound(cumulativeWeight.begin(), cumulativeWeight.end(), target);
  if (found == cumulativeWeight.end()) // rounding of uniform() * total up to total
    return static_cast<Eigen::Index>(count - 1);
  return found - cumulativeWeight.begin();
}

// scikit-learn's _relocate_empty_clusters: each empty cluster, in index order, takes the point
// farthest from its current centroid among clusters that keep at least one member.
void relocateIntoEmptyClusters(const PointMatrix& points, const PointMatrix& centroids,
                               std::vector<int>& assignment) {
  const auto k = static_cast<int>(centroids.rows());
  std::vector<int> sizes(k, 0);
  for (int cluster : assignment)
    ++sizes[cluster];
  if (std::find(sizes.begin(), sizes.end(), 0) == sizes.end())
    return;
  std::vector<double> distance(assignment.size());
  for (std::size_t point = 0; point < assignment.size(); ++point)
    distance[point] = squaredDistance(points, Eigen::Index(point), centroids, assignment[point]);
  std::vector<std::size_t> farthestFirst(assignment.size());
  std::iota(farthestFirst.begin(), farthestFirst.end(), 0);
  std::stable_sort(
      farthestFirst.begin(), farthestFirst.end(),
      [&](std::size_t left, std::size_t right) { return distance[left] > distance[right]; });
  // A point skipped because its cluster had one member stays skipped (sizes only shrink), so one
  // forward pass serves every empty cluster; k ≤ points guarantees a donor for each.
  std::size_t next = 0;
  for (int empty = 0; empty < k; ++empty) {
    if (sizes[empty] != 0)
      continue;
    while (sizes[assignment[farthestFirst[next]]] <= 1)
      ++next;
    assert(next < farthestFirst.size());
    const std::size_t moved = farthestFirst[next++];
    --sizes[assignment[moved]];
    assignment[moved] = empty;
    sizes[empty] = 1;
  }
}

PointMatrix clusterMeans(const PointMatrix& points, const std::vector<int>& assignment, int k) {
  PointMatrix sums = PointMatrix::Zero(k, points.cols());
  std::vector<int> sizes(k, 0);
  for (std::size_t point = 0; point < assignment.size(); ++point) {
    sums.row(assignment[point]) += points.row(Eigen::Index(point));
    ++sizes[assignment[point]];
  }
  for (int cluster = 0; cluster < k; ++cluster) {
    assert(sizes[cluster] > 0 && "empty clusters are relocated before the update");
    sums.row(cluster) /= double(sizes[cluster]);
  }
  return sums;
}

double inertiaOf(const PointMatrix& points, const PointMatrix& centroids,
                 const std::vector<int>& assignment) {
  double inertia = 0;
  for (std::size_t point = 0; point < assignment.size(); ++point)
    inertia += squaredDistance(points, Eigen::Index(point), centroids, assignment[point]);
  return inertia;
}

} // namespace

PointMatrix kMeansPlusPlus(const PointMatrix& points, int k, Rng& rng) {
  checkPoints(points);
  checkClusterCount(points, k);
  const Eigen::Index count = points.rows();
  const int localTrials = 2 + static_cast<int>(std::log(double(k)));
  PointMatrix centres(k, points.cols());
  const auto first = static_cast<Eigen::Index>(rng.uniformInt(std::uint64_t(count)));
  centres.row(0) = points.row(first);

  // closest[i] = D(x_i)², the squared distance to the nearest centre chosen so far.
  std::vector<double> closest(count);
  for (Eigen::Index point = 0; point < count; ++point)
    closest[point] = squaredDistance(points, point, centres, 0);
  std::vector<double> cumulative(count);
  std::vector<double> candidateClosest(count);
  std::vector<double> bestClosest(count);
  for (int centre = 1; centre < k; ++centre) {
    std::partial_sum(closest.begin(), closest.end(), cumulative.begin());
    Eigen::Index bestCandidate = -1;
    double bestPotential = 0;
    for (int trial = 0; trial < localTrials; ++trial) {
      const Eigen::Index candidate = drawByWeight(cumulative, rng);
      double potential = 0;
      for (Eigen::Index point = 0; point < count; ++point) {
        const double distance = (points.row(point) - points.row(candidate)).squaredNorm();
        candidateClosest[point] = std::min(closest[point], distance);
        potential += candidateClosest[point];
      }
      if (bestCandidate < 0 || potential < bestPotential) {
        bestCandidate = candidate;
        bestPotential = potential;
        bestClosest.swap(candidateClosest);
      }
    }
    centres.row(centre) = points.row(bestCandidate);
    closest.swap(bestClosest);
  }
  return centres;
}

KMeansResult lloyd(const PointMatrix& points, const PointMatrix& initialCentroids,
                   const KMeansOptions& options) {
  checkPoints(points);
  const auto k = static_cast<int>(initialCentroids.rows());
  checkClusterCount(points, k);
  checkIterationOptions(options);
  if (initialCentroids.cols() != points.cols())
    throw Error("k-means centroids have " + std::to_string(initialCentroids.cols()) +
                " coordinates but the points have " + std::to_string(points.cols()));
  const double threshold = absoluteTolerance(points, options.tolerance);

  KMeansResult result;
  result.centroids = initialCentroids;
  std::vector<int> previous;
  while (result.iterations < options.maxIterations) {
    ++result.iterations;
    std::vector<int> assignment = assignToNearest(points, result.centroids);
    if (assignment == previous)
      break; // strict convergence: the centroids are already the means of this assignment
    relocateIntoEmptyClusters(points, result.centroids, assignment);
    PointMatrix updated = clusterMeans(points, assignment, k);
    const double shift = (updated - result.centroids).squaredNorm();
    result.centroids = std::move(updated);
    previous = std::move(assignment);
    if (shift <= threshold)
      break;
  }
  // After a stop on tolerance or iterations the last update moved the centroids, so the points
  // are assigned once more to report an assignment and inertia that match them.
  result.assignment = assignToNearest(points, result.centroids);
  result.inertia = inertiaOf(points, result.centroids, result.assignment);
  return result;
}

KMeansResult kMeansRestart(const PointMatrix& points, const KMeansOptions& options, int restart) {
  checkPoints(points);
  checkClusterCount(points, options.k);
  checkIterationOptions(options);
  if (restart < 0)
    throw Error("k-means restart numbers start at 0 (got " + std::to_string(restart) + ")");
  Rng rng = Rng(options.seed).fork(std::uint64_t(restart));
  KMeansResult result = lloyd(points, kMeansPlusPlus(points, options.k, rng), options);
  result.restart = restart;
  return result;
}

KMeansResult kMeans(const PointMatrix& points, const KMeansOptions& options) {
  checkPoints(points);
  checkClusterCount(points, options.k);
  checkIterationOptions(options);
  if (options.restarts < 1)
    throw Error("k-means needs at least one restart (got " + std::to_string(options.restarts) +
                ")");
  KMeansResult best = kMeansRestart(points, options, 0);
  for (int restart = 1; restart < options.restarts; ++restart) {
    KMeansResult candidate = kMeansRestart(points, options, restart);
    if (candidate.inertia < best.inertia)
      best = std::move(candidate);
  }
  return best;
}

std::vector<int> assignToNearest(const PointMatrix& points, const PointMatrix& centroids) {
  if (centroids.rows() == 0)
    throw Error("cannot assign points to nearest centroids without centroids");
  if (centroids.cols() != points.cols())
    throw Error("centroids have " + std::to_string(centroids.cols()) +
                " coordinates but the points have " + std::to_string(points.cols()));
  std::vector<int> assignment(points.rows());
  for (Eigen::Index point = 0; point < points.rows(); ++point) {
    int nearest = 0;
    double nearestDistance = squaredDistance(points, point, centroids, 0);
    for (Eigen::Index centroid = 1; centroid < centroids.rows(); ++centroid) {
      const double distance = squaredDistance(points, point, centroids, centroid);
      if (distance < nearestDistance) { // strict: ties stay with the lower index
        nearest = static_cast<int>(centroid);
        nearestDistance = distance;
      }
    }
    assignment[point] = nearest;
  }
  return assignment;
}

std::vector<double> clusterRadii(const PointMatrix& points, const PointMatrix& centroids,
                                 const std::vector<int>& assignment) {
  if (assignment.size() != std::size_t(points.rows()))
    throw Error("an assignment of " + std::to_string(assignment.size()) + " entries for " +
                std::to_string(points.rows()) + " points");
  if (centroids.cols() != points.cols())
    throw Error("centroids have " + std::to_string(centroids.cols()) +
                " coordinates but the points have " + std::to_string(points.cols()));
  std::vector<double> squaredRadius(centroids.rows(), 0.0);
  for (std::size_t point = 0; point < assignment.size(); ++point) {
    const int cluster = assignment[point];
    if (cluster < 0 || cluster >= centroids.rows())
      throw Error("point " + std::to_string(point) + " is assigned to cluster " +
                  std::to_string(cluster) + " of " + std::to_string(centroids.rows()));
    squaredRadius[cluster] = std::max(
        squaredRadius[cluster], squaredDistance(points, Eigen::Index(point), centroids, cluster));
  }
  std::vector<double> radii;
  for (double squared : squaredRadius)
    radii.push_back(std::sqrt(squared));
  return radii;
}

} // namespace clustune::cluster
