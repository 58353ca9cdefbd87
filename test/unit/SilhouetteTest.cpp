// The silhouette (cluster/Silhouette.h) against values computed by hand, and the choice of K by
// the mean silhouette. docs/clustering.md lists which test checks which rule.
#include "cluster/Silhouette.h"

#include "ClusterTestSupport.h"
#include "support/Error.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>

using namespace clustune;
using namespace clustune::cluster;
using namespace clustune::cluster::testing;

namespace {

void expectValues(const std::vector<double>& actual, const std::vector<double>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t point = 0; point < expected.size(); ++point)
    EXPECT_NEAR(actual[point], expected[point], 1e-12) << "point " << point;
}

} // namespace

TEST(Silhouette, TwoClustersOnALineMatchHandComputation) {
  // Clusters {0, 1} and {10, 11}; every a(i) = 1.
  //   0:  b = (10 + 11) / 2 = 10.5, s = 9.5 / 10.5 = 19/21
  //   1:  b = (9 + 10) / 2  = 9.5,  s = 8.5 / 9.5  = 17/19
  //   10: b = (10 + 9) / 2  = 9.5,  s = 17/19
  //   11: b = (11 + 10) / 2 = 10.5, s = 19/21
  const PointMatrix points = column({0, 1, 10, 11});
  const std::vector<int> assignment = {0, 0, 1, 1};
  expectValues(silhouetteValues(points, assignment), {19.0 / 21, 17.0 / 19, 17.0 / 19, 19.0 / 21});
  EXPECT_NEAR(meanSilhouette(points, assignment), (19.0 / 21 + 17.0 / 19) / 2, 1e-12);
}

TEST(Silhouette, MisassignedPointsHaveNegativeValues) {
  // Clusters {0, 10} and {1, 11}; every a(i) = 10.
  //   0:  b = (1 + 11) / 2 = 6,  s = (6 - 10) / 10 = -0.4
  //   1:  b = (1 + 9) / 2  = 5,  s = -0.5
  //   10: b = (9 + 1) / 2  = 5,  s = -0.5
  //   11: b = (11 + 1) / 2 = 6,  s = -0.4
  expectValues(silhouetteValues(column({0, 1, 10, 11}), {0, 1, 0, 1}), {-0.4, -0.5, -0.5, -0.4});
}

TEST(Silhouette, SingletonClusterGivesZero) {
  // Clusters {0, 1} and {5}: 0 has a = 1, b = 5, s = 4/5; 1 has a = 1, b = 4, s = 3/4; 5 is
  // alone: 0.
  expectValues(silhouetteValues(column({0, 1, 5}), {0, 0, 1}), {0.8, 0.75, 0.0});
}

TEST(Silhouette, ThreeClustersMatchHandComputation) {
  // A = {0, 2}, B = {5, 6, 8}, C = {12, 15}.
  //   0:  a = 2;                 B: (5+6+8)/3 = 19/3,   C: (12+15)/2 = 13.5 -> b = 19/3,
  //       s = (19/3 - 6/3) / (19/3) = 13/19
  //   2:  a = 2;                 B: (3+4+6)/3 = 13/3,   C: (10+13)/2 = 11.5 -> b = 13/3,
  //       s = (13/3 - 6/3) / (13/3) = 7/13
  //   5:  a = (1+3)/2 = 2;       A: (5+3)/2 = 4,        C: (7+10)/2 = 8.5   -> b = 4,
  //       s = (4 - 2) / 4 = 1/2
  //   6:  a = (1+2)/2 = 1.5;     A: (6+4)/2 = 5,        C: (6+9)/2 = 7.5    -> b = 5,
  //       s = (5 - 1.5) / 5 = 7/10
  //   8:  a = (3+2)/2 = 2.5;     A: (8+6)/2 = 7,        C: (4+7)/2 = 5.5    -> b = 5.5,
  //       s = (5.5 - 2.5) / 5.5 = 6/11
  //   12: a = 3;                 A: (12+10)/2 = 11,     B: (7+6+4)/3 = 17/3 -> b = 17/3,
  //       s = (17/3 - 9/3) / (17/3) = 8/17
  //   15: a = 3;                 A: (15+13)/2 = 14,     B: (10+9+7)/3 = 26/3 -> b = 26/3,
  //       s = (26/3 - 9/3) / (26/3) = 17/26
  const PointMatrix points = column({0, 2, 5, 6, 8, 12, 15});
  const std::vector<int> assignment = {0, 0, 1, 1, 1, 2, 2};
  const std::vector<double> expected = {13.0 / 19, 7.0 / 13, 0.5,      0.7,
                                        6.0 / 11,  8.0 / 17, 17.0 / 26};
  expectValues(silhouetteValues(points, assignment), expected);
  double sum = 0;
  for (double value : expected)
    sum += value;
  EXPECT_NEAR(meanSilhouette(points, assignment), sum / 7, 1e-12);
}

TEST(Silhouette, UsesEuclideanNotSquaredDistance) {
  // A = {(0,0), (3,4)}, B = {(0,20), (0,21)}: |(0,0) - (3,4)| = 5, so a = 5 for A's points and
  // a = 1 for B's.
  PointMatrix points(4, 2);
  points << 0, 0, 3, 4, 0, 20, 0, 21;
  const double b0 = (20.0 + 21.0) / 2;
  const double b1 = (std::sqrt(265.0) + std::sqrt(298.0)) / 2; // (3,4) to (0,20) and (0,21)
  const double b2 = (20.0 + std::sqrt(265.0)) / 2;
  const double b3 = (21.0 + std::sqrt(298.0)) / 2;
  expectValues(silhouetteValues(points, {0, 0, 1, 1}),
               {(b0 - 5) / b0, (b1 - 5) / b1, (b2 - 1) / b2, (b3 - 1) / b3});
}

TEST(Silhouette, LabelsNeedNotBeContiguous) {
  const PointMatrix points = column({0, 1, 10, 11});
  const std::vector<double> expected = {19.0 / 21, 17.0 / 19, 17.0 / 19, 19.0 / 21};
  expectValues(silhouetteValues(points, {5, 5, 2, 2}), expected);
  expectValues(silhouetteValues(points, {0, 0, 2, 2}), expected); // cluster 1 is empty
}

TEST(Silhouette, DuplicatePointsInDifferentClustersGiveZero) {
  // a = b = 0: scikit-learn's 0/0 becomes 0.
  expectValues(silhouetteValues(column({3, 3, 3, 3}), {0, 0, 1, 1}), {0, 0, 0, 0});
}

TEST(Silhouette, RejectsFewerThanTwoClustersOrPoints) {
  EXPECT_THROW(silhouetteValues(column({0, 1, 2}), {1, 1, 1}), Error);
  EXPECT_THROW(meanSilhouette(column({0, 1, 2}), {0, 0, 0}), Error);
  EXPECT_THROW(meanSilhouette(column({0}), {0}), Error);
  EXPECT_THROW(meanSilhouette(PointMatrix(0, 1), {}), Error);
  EXPECT_THROW(meanSilhouette(column({0, 1}), {0, 1, 1}), Error);
  EXPECT_THROW(meanSilhouette(column({0, 1}), {0, -1}), Error);
}

TEST(ChooseKBySilhouette, PicksFourForFourSeparatedBlobs) {
  const Blobs blobs = gaussianBlobs(4, 30, 5, 10.0, 0.5, 7);
  const KSelection selection = chooseKBySilhouette(blobs.points, 2, 8, KMeansOptions{});
  EXPECT_EQ(selection.bestK, 4);
  ASSERT_EQ(selection.silhouettes.size(), 7u);
  for (int index = 0; index < 7; ++index)
    EXPECT_EQ(selection.silhouettes[index].first, 2 + index);
  const auto best = std::max_element(
      selection.silhouettes.begin(), selection.silhouettes.end(),
      [](const auto& left, const auto& right) { return left.second < right.second; });
  EXPECT_EQ(best->first, 4);
  EXPECT_EQ(selection.best.centroids.rows(), 4);
  EXPECT_TRUE(samePartition(selection.best.assignment, blobs.labels));
  EXPECT_DOUBLE_EQ(best->second, meanSilhouette(blobs.points, selection.best.assignment));
}

TEST(ChooseKBySilhouette, SkipsKNotBelowThePointCount) {
  // Four points: k = 2 and 3 are tried; k = 2 finds {0, 1}, {10, 11} (see the hand computation
  // above); k = 3 splits one pair, whose points fall to 0 and pull the mean down.
  const KSelection selection = chooseKBySilhouette(column({0, 1, 10, 11}), 2, 10, KMeansOptions{});
  ASSERT_EQ(selection.silhouettes.size(), 2u);
  EXPECT_EQ(selection.silhouettes[0].first, 2);
  EXPECT_EQ(selection.silhouettes[1].first, 3);
  EXPECT_EQ(selection.bestK, 2);
  EXPECT_NEAR(selection.silhouettes[0].second, (19.0 / 21 + 17.0 / 19) / 2, 1e-12);
}

TEST(ChooseKBySilhouette, RejectsABadRange) {
  const PointMatrix points = column({0, 1, 10, 11});
  EXPECT_THROW(chooseKBySilhouette(points, 1, 3, KMeansOptions{}), Error);
  EXPECT_THROW(chooseKBySilhouette(points, 3, 2, KMeansOptions{}), Error);
  EXPECT_THROW(chooseKBySilhouette(points, 4, 6, KMeansOptions{}), Error); // no k below 4
}

TEST(ChooseKBySilhouette, IdenticalPointsScoreZero) {
  const PointMatrix points = PointMatrix::Constant(5, 3, 2.5);
  const KSelection selection = chooseKBySilhouette(points, 2, 4, {});
  EXPECT_EQ(selection.bestK, 2);
  ASSERT_EQ(selection.silhouettes.size(), 3u);
  for (const auto& [k, silhouette] : selection.silhouettes)
    EXPECT_EQ(silhouette, 0.0) << "k = " << k;
}
