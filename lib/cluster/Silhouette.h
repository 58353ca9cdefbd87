// The silhouette (Rousseeuw 1987) judges how well K-means separated the task embeddings;
// clustune-cluster records it in clusters.json and uses it to choose K (DESIGN §6,
// docs/clustering.md). Computed as scikit-learn's silhouette_samples, so values match the
// Python reference.
#pragma once

#include "cluster/KMeans.h"

#include <utility>
#include <vector>

namespace clustune::cluster {

// Rousseeuw's silhouette with Euclidean distance, as scikit-learn's silhouette_samples: a(i) the
// mean distance to the other members of its cluster, b(i) the smallest mean distance to another
// (non-empty) cluster's members, s(i) = (b - a) / max(a, b); s(i) = 0 for a point alone in its
// cluster, and 0 when a = b = 0 (duplicate points in different clusters). Cluster labels need
// not be contiguous. Error if the assignment does not match the points, has a negative label,
// if fewer than 2 clusters are non-empty or there are fewer than 2 points.
std::vector<double> silhouetteValues(const PointMatrix& points, const std::vector<int>& assignment);

// The mean of silhouetteValues, with the same errors.
double meanSilhouette(const PointMatrix& points, const std::vector<int>& assignment);

struct KSelection {
  int bestK = 0;
  std::vector<std::pair<int, double>> silhouettes; // (k, mean silhouette) per k tried
  KMeansResult best;
};

// Runs kMeans (with `options` but its k) for every k in [minK, maxK] and keeps the highest mean
// silhouette (ties: the smaller k). The silhouette needs a point outside every singleton
// cluster, so k ≥ number of points is skipped and not listed in `silhouettes`. Error if
// minK < 2, minK > maxK, or no k in the range is below the number of points.
KSelection chooseKBySilhouette(const PointMatrix& points, int minK, int maxK,
                               KMeansOptions options);

} // namespace clustune::cluster
