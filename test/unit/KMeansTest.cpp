// K-means (cluster/KMeans.h): recovery of separated blobs, inertia, determinism, the choice among
// restarts, k-means++ seeding, empty clusters, the tolerance rule, nearest-centroid ties, radii
// and the errors. docs/clustering.md lists which test checks which rule.
#include "cluster/KMeans.h"

#include "ClusterTestSupport.h"
#include "support/Error.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <set>

using namespace clustune;
using namespace clustune::cluster;
using namespace clustune::cluster::testing;

namespace {

Blobs fourBlobs(std::uint64_t seed = 7) {
  return gaussianBlobs(/*blobs=*/4, /*pointsPerBlob=*/30, /*dimensions=*/5, /*spacing=*/10.0,
                       /*stddev=*/0.5, seed);
}

KMeansOptions optionsWithK(int k, std::uint64_t seed = 0) {
  KMeansOptions options;
  options.k = k;
  options.seed = seed;
  return options;
}

void expectIdentical(const KMeansResult& left, const KMeansResult& right) {
  EXPECT_EQ(left.centroids, right.centroids);
  EXPECT_EQ(left.assignment, right.assignment);
  EXPECT_EQ(left.inertia, right.inertia);
  EXPECT_EQ(left.iterations, right.iterations);
  EXPECT_EQ(left.restart, right.restart);
}

} // namespace

TEST(KMeans, RecoversSeparatedGaussianBlobsExactly) {
  const Blobs blobs = fourBlobs();
  const KMeansResult result = kMeans(blobs.points, optionsWithK(4));
  ASSERT_EQ(result.centroids.rows(), 4);
  ASSERT_EQ(result.centroids.cols(), 5);
  EXPECT_TRUE(samePartition(result.assignment, blobs.labels));
  // Each centroid is the mean of 30 N(0, 0.25) points, so within 0.5 of its blob's centre.
  for (int cluster = 0; cluster < 4; ++cluster) {
    const int blob =
        blobs.labels[std::find(result.assignment.begin(), result.assignment.end(), cluster) -
                     result.assignment.begin()];
    EXPECT_LT((result.centroids.row(cluster) - blobs.centres.row(blob)).norm(), 0.5);
  }
  EXPECT_LT(result.iterations, KMeansOptions{}.maxIterations);
}

TEST(KMeans, InertiaEqualsHandRecomputation) {
  const Blobs blobs = fourBlobs();
  const KMeansResult result = kMeans(blobs.points, optionsWithK(4));
  double inertia = 0;
  for (Eigen::Index point = 0; point < blobs.points.rows(); ++point)
    for (Eigen::Index dimension = 0; dimension < blobs.points.cols(); ++dimension) {
      const double difference =
          blobs.points(point, dimension) - result.centroids(result.assignment[point], dimension);
      inertia += difference * difference;
    }
  EXPECT_NEAR(result.inertia, inertia, 1e-9 * inertia);
  // Converged: every centroid is the mean of its members.
  for (int cluster = 0; cluster < 4; ++cluster) {
    Eigen::RowVectorXd sum = Eigen::RowVectorXd::Zero(5);
    int members = 0;
    for (Eigen::Index point = 0; point < blobs.points.rows(); ++point)
      if (result.assignment[point] == cluster) {
        sum += blobs.points.row(point);
        ++members;
      }
    ASSERT_GT(members, 0);
    EXPECT_LT((sum / members - result.centroids.row(cluster)).norm(), 1e-12);
  }
}

TEST(KMeans, SameSeedGivesIdenticalResult) {
  const PointMatrix points = uniformSquare(200, 3);
  expectIdentical(kMeans(points, optionsWithK(8, 42)), kMeans(points, optionsWithK(8, 42)));
  const Blobs blobs = fourBlobs();
  expectIdentical(kMeans(blobs.points, optionsWithK(4, 5)),
                  kMeans(blobs.points, optionsWithK(4, 5)));
}

TEST(KMeans, DifferentSeedGivesSamePartitionOfSeparatedBlobs) {
  const Blobs blobs = fourBlobs();
  const KMeansResult first = kMeans(blobs.points, optionsWithK(4, 1));
  for (std::uint64_t seed : {2, 3, 1000}) {
    const KMeansResult other = kMeans(blobs.points, optionsWithK(4, seed));
    EXPECT_TRUE(samePartition(first.assignment, other.assignment)) << "seed " << seed;
    EXPECT_NEAR(first.inertia, other.inertia, 1e-9 * first.inertia) << "seed " << seed;
  }
}

TEST(KMeans, KeepsTheFirstRestartWithTheLowestInertia) {
  // Uniform points have no cluster structure: restarts end in different local minima.
  const PointMatrix points = uniformSquare(200, 11);
  KMeansOptions options = optionsWithK(8, 9);
  options.restarts = 10;
  const KMeansResult best = kMeans(points, options);
  std::vector<double> inertias;
  for (int restart = 0; restart < options.restarts; ++restart)
    inertias.push_back(kMeansRestart(points, options, restart).inertia);
  const auto lowest = std::min_element(inertias.begin(), inertias.end());
  // A bad initialisation did happen, so the choice matters.
  EXPECT_GT(*std::max_element(inertias.begin(), inertias.end()), *lowest * (1 + 1e-6));
  EXPECT_EQ(best.restart, lowest - inertias.begin());
  EXPECT_EQ(best.inertia, *lowest);
  for (double inertia : inertias)
    EXPECT_LE(best.inertia, inertia);
  expectIdentical(best, kMeansRestart(points, options, best.restart));
  // A single restart is restart 0; best-of-10 is never worse than best-of-1 under any seed.
  options.restarts = 1;
  expectIdentical(kMeans(points, options), kMeansRestart(points, options, 0));
  bool someSingleRestartWorse = false;
  for (std::uint64_t seed = 0; seed < 5; ++seed) {
    options.seed = seed;
    options.restarts = 1;
    const double single = kMeans(points, options).inertia;
    options.restarts = 10;
    const double bestOfTen = kMeans(points, options).inertia;
    EXPECT_LE(bestOfTen, single) << "seed " << seed;
    someSingleRestartWorse |= bestOfTen < single;
  }
  EXPECT_TRUE(someSingleRestartWorse);
}

TEST(KMeans, RestartDrawsFromItsOwnForkedStream) {
  const PointMatrix points = uniformSquare(100, 4);
  const KMeansOptions options = optionsWithK(5, 21);
  for (int restart : {0, 3}) {
    Rng rng = Rng(options.seed).fork(restart);
    KMeansResult expected = lloyd(points, kMeansPlusPlus(points, options.k, rng), options);
    expected.restart = restart;
    expectIdentical(kMeansRestart(points, options, restart), expected);
  }
}

TEST(KMeansPlusPlus, PicksOneDistinctDataPointInEachFarApartGroup) {
  // Three tight groups 100 apart: once a group holds a centre its D² is tiny, so the next centre
  // comes from another group.
  const Blobs groups = gaussianBlobs(3, 10, 3, 100.0, 0.1, 17);
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    Rng rng(seed);
    const PointMatrix centres = kMeansPlusPlus(groups.points, 3, rng);
    std::set<int> groupsHit;
    for (Eigen::Index centre = 0; centre < 3; ++centre) {
      Eigen::Index row = -1;
      for (Eigen::Index point = 0; point < groups.points.rows(); ++point)
        if (groups.points.row(point) == centres.row(centre))
          row = point;
      ASSERT_GE(row, 0) << "a centre is not a data point (seed " << seed << ")";
      groupsHit.insert(groups.labels[row]);
    }
    EXPECT_EQ(groupsHit.size(), 3u) << "seed " << seed;
  }
}

TEST(KMeansPlusPlus, FewerDistinctPointsThanKStillGivesKCentres) {
  const PointMatrix points = column({1, 1, 1, 4});
  Rng rng(3);
  const PointMatrix centres = kMeansPlusPlus(points, 3, rng);
  ASSERT_EQ(centres.rows(), 3);
  EXPECT_TRUE((centres.array() == 1 || centres.array() == 4).all());
  EXPECT_TRUE((centres.array() == 4).any());
}

TEST(KMeans, EmptiedClusterTakesThePointFarthestFromItsCentroid) {
  // Centroid 1000 gets no point. Distances to the own centroid are 0.5, 0.5, 2, 1 and 8, so the
  // empty cluster takes 20; the centroids become 0.5, 10.5 and 20, and the second iteration
  // assigns as the first ended: converged.
  const PointMatrix points = column({0, 1, 10, 11, 20});
  const KMeansResult result = lloyd(points, column({0.5, 12, 1000}), KMeansOptions{});
  EXPECT_EQ(result.centroids, column({0.5, 10.5, 20}));
  EXPECT_EQ(result.assignment, (std::vector<int>{0, 0, 1, 1, 2}));
  EXPECT_EQ(result.inertia, 4 * 0.25);
  EXPECT_EQ(result.iterations, 2);
}

TEST(KMeans, EmptiedClusterNeverTakesTheLastMemberOfAnotherCluster) {
  // 100 (distance 50 from centroid 150) is the farthest from its centroid but alone in its
  // cluster, so the empty cluster takes the next farthest, 3 (distance 2 from centroid 1). The
  // centroids become 1, 100 and 3; the second iteration keeps the assignment (2 is as near to 1
  // as to 3 and stays with the lower index): converged.
  const PointMatrix points = column({0, 1, 2, 3, 100});
  const KMeansResult result = lloyd(points, column({1, 150, 500}), KMeansOptions{});
  EXPECT_EQ(result.assignment, (std::vector<int>{0, 0, 0, 2, 1}));
  EXPECT_EQ(result.centroids, column({1, 100, 3}));
  EXPECT_EQ(result.iterations, 2);
}

TEST(KMeans, ToleranceIsScaledByTheMeanPerDimensionVariance) {
  // From centroids (0,0) and (11,0) the first update moves them to (0.5,0) and (10.5,0): a
  // summed squared shift of 0.5. The per-dimension variances are 25.25 and 0, mean 12.625, so
  // tolerance 0.04 (0.505 ≥ 0.5) stops after one iteration, and 0.039 (0.49 < 0.5) runs a second
  // one, which finds the assignment unchanged.
  PointMatrix points(4, 2);
  points << 0, 0, 1, 0, 10, 0, 11, 0;
  PointMatrix initial(2, 2);
  initial << 0, 0, 11, 0;
  KMeansOptions options;
  options.tolerance = 0.04;
  EXPECT_EQ(lloyd(points, initial, options).iterations, 1);
  options.tolerance = 0.039;
  EXPECT_EQ(lloyd(points, initial, options).iterations, 2);
}

TEST(KMeans, ToleranceStopsBeforeMaxIterations) {
  const PointMatrix points = uniformSquare(300, 5);
  KMeansOptions options = optionsWithK(8, 1);
  options.restarts = 1;
  options.tolerance = 0;
  const KMeansResult strict = kMeans(points, options);
  options.tolerance = 1e-2;
  const KMeansResult loose = kMeans(points, options);
  EXPECT_LT(loose.iterations, strict.iterations);
  EXPECT_LT(strict.iterations, options.maxIterations);
  options.maxIterations = 1;
  EXPECT_EQ(kMeans(points, options).iterations, 1);
}

TEST(KMeans, RejectsInvalidInput) {
  const PointMatrix points = column({0, 1, 2});
  KMeansOptions options;
  options.k = 0;
  EXPECT_THROW(kMeans(points, options), Error);
  options.k = 4;
  EXPECT_THROW(kMeans(points, options), Error);
  options.k = 1;
  EXPECT_THROW(kMeans(PointMatrix(0, 3), options), Error);
  options.restarts = 0;
  EXPECT_THROW(kMeans(points, options), Error);
  options.restarts = 1;
  options.maxIterations = 0;
  EXPECT_THROW(kMeans(points, options), Error);
  options.maxIterations = 10;
  options.tolerance = -1;
  EXPECT_THROW(kMeans(points, options), Error);
  options.tolerance = 1e-4;
  EXPECT_NO_THROW(kMeans(points, options));
  for (double bad :
       {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    PointMatrix withBad = points;
    withBad(1, 0) = bad;
    EXPECT_THROW(kMeans(withBad, options), Error);
  }
  EXPECT_THROW(lloyd(points, PointMatrix::Zero(1, 2), options), Error);
}

TEST(AssignToNearest, TiesGoToTheLowerIndex) {
  EXPECT_EQ(assignToNearest(column({5, 4, 6, 15}), column({10, 0, 10})),
            (std::vector<int>{0, 1, 0, 0}));
  EXPECT_EQ(assignToNearest(column({5}), column({0, 10})), std::vector<int>{0});
  EXPECT_EQ(assignToNearest(column({5}), column({10, 0})), std::vector<int>{0});
  EXPECT_THROW(assignToNearest(column({5}), PointMatrix(0, 1)), Error);
  EXPECT_THROW(assignToNearest(column({5}), PointMatrix::Zero(1, 2)), Error);
}

TEST(ClusterRadii, LargestMemberDistanceAndZeroForAnEmptyCluster) {
  PointMatrix points(3, 2);
  points << 0, 0, 3, 4, 1, 1;
  PointMatrix centroids(3, 2);
  centroids << 0, 0, 7, 7, 1, 2;
  const std::vector<double> radii = clusterRadii(points, centroids, {0, 2, 0});
  ASSERT_EQ(radii.size(), 3u);
  EXPECT_DOUBLE_EQ(radii[0], std::sqrt(2.0)); // (1,1) is farther from (0,0) than (0,0) itself
  EXPECT_DOUBLE_EQ(radii[1], 0.0);            // empty
  EXPECT_DOUBLE_EQ(radii[2], std::sqrt(8.0)); // (3,4) - (1,2) = (2,2)
  EXPECT_THROW(clusterRadii(points, centroids, {0, 3, 0}), Error);
  EXPECT_THROW(clusterRadii(points, centroids, {0, 1}), Error);
}
