// Kipf & Welling's link-prediction evaluation (REFERENCES.md "Graph autoencoder"), over a set of
// task graphs: some edges are held out of the training adjacency, as many non-edges are drawn,
// and the trained decoder must rank the held-out edges above the non-edges (ROC AUC, average
// precision). This is how GAE training is checked to learn structure rather than memorise it.
#pragma once

#include "features/TaskGraph.h"

#include <cstdint>
#include <set>
#include <utility>
#include <vector>

namespace clustune::gae {

// Node pairs are batch indices (i<j) for the graphs laid out in the given order, as
// makeGraphBatch numbers them: graph g owns [graphOffsets[g], graphOffsets[g+1]).
struct EdgeSplit {
  std::vector<int> graphOffsets;
  std::vector<std::pair<int, int>> trainingEdges;
  std::vector<std::pair<int, int>> validationEdges, validationNonEdges;
  std::vector<std::pair<int, int>> testEdges, testNonEdges;

  // The validation and test edges: what makeGraphBatch must leave out.
  std::set<std::pair<int, int>> heldOutEdges() const;
};

struct EdgeSplitOptions {
  double testFraction = 0.10;
  double validationFraction = 0.05;
  std::uint64_t seed = 0;
};

// Shuffles all edges with `seed` and takes floor(fraction · E) test, then validation edges (at
// least 1 each when E >= 20). An edge is only held out while both its ends keep another
// training edge, so no node loses its last edge if that can be avoided; when the edges that
// pass this rule are too few, the remaining quota is filled from the other edges in shuffled
// order (a star, for instance, has no edge that spares every leaf). Then as many non-edges as
// edges are drawn for each part: distinct pairs i≠j within one graph that are not edges (held
// out or not), uniform over such pairs, the test and validation non-edges disjoint. Throws
// clustune::Error when the graphs have too few non-edges. Deterministic for a seed.
EdgeSplit splitEdges(const std::vector<const features::TaskGraph*>& graphs,
                     const EdgeSplitOptions& options = {});

// The held-out edges of `split` that fall in the graphs `graphIndices` (indices into the graphs
// the split was made for), renumbered for a batch of exactly those graphs in that order.
std::set<std::pair<int, int>> heldOutEdgesForBatch(const EdgeSplit& split,
                                                   const std::vector<int>& graphIndices);

// The exact area under the ROC curve: the probability that a random positive scores above a
// random negative, ties counting ½ (Mann-Whitney U / (n₊ n₋)). Throws clustune::Error when
// either list is empty.
double rocAuc(const std::vector<double>& positiveScores, const std::vector<double>& negativeScores);

// scikit-learn's average_precision_score: Σ_n (R_n − R_{n−1}) P_n over the distinct scores taken
// as thresholds in descending order (tied scores form one threshold). Throws clustune::Error when
// there is no positive.
double averagePrecision(const std::vector<double>& positiveScores,
                        const std::vector<double>& negativeScores);

} // namespace clustune::gae
