// Shared by the lib/cluster tests: Gaussian blobs whose true partition the test knows, and a
// comparison of partitions that ignores how clusters are numbered.
#pragma once

#include "cluster/KMeans.h"
#include "support/Random.h"

#include <map>
#include <vector>

namespace clustune::cluster::testing {

struct Blobs {
  PointMatrix points;
  std::vector<int> labels; // the blob each point was drawn from
  PointMatrix centres;
};

// `blobs` blobs of `pointsPerBlob` points in `dimensions` (≥ blobs) dimensions: blob b is centred
// at spacing × e_b and has independent N(0, stddev²) coordinates. Points are listed blob by blob.
inline Blobs gaussianBlobs(int blobs, int pointsPerBlob, int dimensions, double spacing,
                           double stddev, std::uint64_t seed) {
  Rng rng(seed);
  Blobs result;
  result.points.resize(blobs * pointsPerBlob, dimensions);
  result.centres = PointMatrix::Zero(blobs, dimensions);
  for (int blob = 0; blob < blobs; ++blob) {
    result.centres(blob, blob) = spacing;
    for (int member = 0; member < pointsPerBlob; ++member) {
      const int row = blob * pointsPerBlob + member;
      for (int dimension = 0; dimension < dimensions; ++dimension)
        result.points(row, dimension) = result.centres(blob, dimension) + rng.normal(0, stddev);
      result.labels.push_back(blob);
    }
  }
  return result;
}

// `count` points uniform in the unit square: no cluster structure, so restarts of K-means end in
// different local minima.
inline PointMatrix uniformSquare(int count, std::uint64_t seed) {
  Rng rng(seed);
  PointMatrix points(count, 2);
  for (int row = 0; row < count; ++row)
    for (int column = 0; column < 2; ++column)
      points(row, column) = rng.uniform();
  return points;
}

// Whether two labellings describe the same partition, up to renumbering the clusters.
inline bool samePartition(const std::vector<int>& left, const std::vector<int>& right) {
  if (left.size() != right.size())
    return false;
  std::map<int, int> leftToRight, rightToLeft;
  for (std::size_t point = 0; point < left.size(); ++point) {
    const auto forward = leftToRight.emplace(left[point], right[point]).first;
    const auto backward = rightToLeft.emplace(right[point], left[point]).first;
    if (forward->second != right[point] || backward->second != left[point])
      return false;
  }
  return true;
}

inline PointMatrix column(std::initializer_list<double> values) {
  PointMatrix points(values.size(), 1);
  Eigen::Index row = 0;
  for (double value : values)
    points(row++, 0) = value;
  return points;
}

} // namespace clustune::cluster::testing
