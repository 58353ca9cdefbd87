// Many small task graphs trained as one (DESIGN §6): their nodes are stacked and their
// normalised adjacencies form one block-diagonal sparse matrix, so a GCN layer over the batch is
// two sparse-dense products instead of one small product per graph, and no message crosses from
// one graph to another. Edges held out for evaluation (EdgeSplit) are left out of Â here.
#pragma once

#include "features/TaskGraph.h"
#include "gae/AdjacencyMatrix.h"
#include "gae/FeatureStandardizer.h"

#include <set>
#include <utility>
#include <vector>

namespace clustune::gae {

struct GraphBatch {
  nn::Matrix features;           // all nodes, standardised
  AdjacencyMatrix adjacency;     // Â = D^-1/2 (A + I) D^-1/2 over the kept edges, block diagonal
  std::vector<int> graphOffsets; // graph g owns nodes [graphOffsets[g], graphOffsets[g+1])
  std::vector<std::pair<int, int>> edges; // kept (training) edges, batch node indices, i<j

  int nodeCount() const { return graphOffsets.empty() ? 0 : graphOffsets.back(); }
  int graphCount() const { return static_cast<int>(graphOffsets.size()) - 1; }
};

// Node g's batch index is graphOffsets[g] + its index in its graph. `removedEdges` (batch
// indices, i<j) are dropped from the adjacency and from `edges`. Throws clustune::Error for an
// edge of a graph that is out of range, a self loop or not written as (smaller, larger), for
// edges that are not sorted or repeat, and for
// feature counts that differ from the standardiser's.
GraphBatch makeGraphBatch(const std::vector<const features::TaskGraph*>& graphs,
                          const FeatureStandardizer& standardizer,
                          const std::set<std::pair<int, int>>* removedEdges = nullptr);

// Â = D^-1/2 (A + I) D^-1/2 for `nodeCount` nodes and undirected edges (i<j, no duplicates):
// entry (i, j) is 1 / sqrt(d_i d_j) with d the degree counting the self loop.
AdjacencyMatrix normalizedAdjacency(int nodeCount, const std::vector<std::pair<int, int>>& edges);

// The first node index of every graph, plus the total, for graphs laid out in this order.
std::vector<int> graphOffsetsOf(const std::vector<const features::TaskGraph*>& graphs);

} // namespace clustune::gae
