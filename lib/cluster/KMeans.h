// K-means over task embeddings (DESIGN §6, docs/clustering.md): clustune-cluster groups tasks so
// that each group gets its own cost model. The algorithm follows scikit-learn's KMeans (greedy
// k-means++, Lloyd iterations, its tolerance rule) so that results can be compared with the
// Python reference, but draws from clustune::Rng so that a seed gives the same clusters on every
// machine.
#pragma once

#include "support/Random.h"

#include <Eigen/Core>
#include <cstdint>
#include <vector>

namespace clustune::cluster {

// One point per row, rows contiguous: every loop here walks points.
using PointMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct KMeansOptions {
  int k = 2;
  int restarts = 10;       // independent k-means++ initialisations; the lowest inertia wins
  int maxIterations = 300; // Lloyd iterations per restart
  // Stop when the summed squared centroid shift ≤ tolerance × mean per-dimension variance of
  // the data (scikit-learn's rule).
  double tolerance = 1e-4;
  std::uint64_t seed = 0;
};

struct KMeansResult {
  PointMatrix centroids;       // k rows
  std::vector<int> assignment; // per point
  double inertia = 0;          // Σ squared distance to the assigned centroid
  int iterations = 0;          // of the winning restart
  int restart = 0;             // which restart won
};

// k-means++ initialisation (Arthur & Vassilvitskii: first centre uniform, then each next centre
// drawn with probability ∝ D(x)²), in scikit-learn's greedy variant: 2 + ⌊ln k⌋ candidates per
// centre, keeping the one that lowers the potential Σ D(x)² most. Restart r draws from
// Rng(seed).fork(r), so results are deterministic and independent of thread count. Lloyd then
// alternates assignment and centroid update; an emptied cluster takes the point farthest from
// its centroid; ties in assignment go to the lower cluster index.
// Throws clustune::Error for k < 1, k > number of points, no points, non-finite coordinates,
// restarts < 1, maxIterations < 1 or a negative tolerance.
KMeansResult kMeans(const PointMatrix& points, const KMeansOptions& options);

// One restart of kMeans on its own: k-means++ from Rng(options.seed).fork(restart), then Lloyd.
// kMeans keeps the first of its restarts with the lowest inertia; this lets a caller (and the
// tests) see every restart. options.restarts is ignored.
KMeansResult kMeansRestart(const PointMatrix& points, const KMeansOptions& options, int restart);

// The k-means++ centres (greedy variant above) as k rows copied from `points`.
PointMatrix kMeansPlusPlus(const PointMatrix& points, int k, Rng& rng);

// Lloyd iterations from the given centroids (k = its rows) with options.maxIterations and
// options.tolerance; the result's restart is 0. Exposed so that a caller can start from known
// centroids.
KMeansResult lloyd(const PointMatrix& points, const PointMatrix& initialCentroids,
                   const KMeansOptions& options);

// Index of the nearest centroid per point (ties: lower index). Error if the widths differ or
// there are no centroids.
std::vector<int> assignToNearest(const PointMatrix& points, const PointMatrix& centroids);

// Per cluster: the largest distance (not squared) of a member from its centroid; 0 for an empty
// cluster. Error if the assignment does not match the points or names a missing cluster.
std::vector<double> clusterRadii(const PointMatrix& points, const PointMatrix& centroids,
                                 const std::vector<int>& assignment);

} // namespace clustune::cluster
