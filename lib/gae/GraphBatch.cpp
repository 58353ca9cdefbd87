// The batch is assembled from triplets: Eigen sorts and compresses them once, which is simpler
// and as fast as inserting the block-diagonal entries in order.
#include "gae/GraphBatch.h"

#include "support/Error.h"

#include <cassert>
#include <cmath>

namespace clustune::gae {

std::vector<int> graphOffsetsOf(const std::vector<const features::TaskGraph*>& graphs) {
  std::vector<int> offsets{0};
  offsets.reserve(graphs.size() + 1);
  for (const features::TaskGraph* graph : graphs)
    offsets.push_back(offsets.back() + static_cast<int>(graph->nodeCount));
  return offsets;
}

AdjacencyMatrix normalizedAdjacency(int nodeCount, const std::vector<std::pair<int, int>>& edges) {
  std::vector<float> degree(static_cast<std::size_t>(nodeCount), 1.0f); // the self loop
  for (const auto& [from, to] : edges) {
    assert(0 <= from && from < to && to < nodeCount);
    degree[static_cast<std::size_t>(from)] += 1.0f;
    degree[static_cast<std::size_t>(to)] += 1.0f;
  }
  std::vector<float> inverseRoot(degree.size());
  for (std::size_t node = 0; node < degree.size(); ++node)
    inverseRoot[node] = 1.0f / std::sqrt(degree[node]);
  std::vector<Eigen::Triplet<float>> entries;
  entries.reserve(static_cast<std::size_t>(nodeCount) + 2 * edges.size());
  for (int node = 0; node < nodeCount; ++node)
    entries.emplace_back(node, node, inverseRoot[node] * inverseRoot[node]);
  for (const auto& [from, to] : edges) {
    const float value = inverseRoot[from] * inverseRoot[to];
    entries.emplace_back(from, to, value);
    entries.emplace_back(to, from, value);
  }
  AdjacencyMatrix adjacency(nodeCount, nodeCount);
  adjacency.setFromTriplets(entries.begin(), entries.end());
  return adjacency;
}

GraphBatch makeGraphBatch(const std::vector<const features::TaskGraph*>& graphs,
                          const FeatureStandardizer& standardizer,
                          const std::set<std::pair<int, int>>* removedEdges) {
  GraphBatch batch;
  batch.graphOffsets = graphOffsetsOf(graphs);
  batch.features.resize(batch.nodeCount(), standardizer.featureCount());
  for (std::size_t index = 0; index < graphs.size(); ++index) {
    const features::TaskGraph& graph = *graphs[index];
    const int offset = batch.graphOffsets[index];
    batch.features.middleRows(offset, static_cast<Eigen::Index>(graph.nodeCount)) =
        standardizer.standardize(graph);
    const int nodes = static_cast<int>(graph.nodeCount);
    for (std::size_t edgeIndex = 0; edgeIndex < graph.edges.size(); ++edgeIndex) {
      const auto& [from, to] = graph.edges[edgeIndex];
      if (!(0 <= from && from < to && to < nodes))
        throw Error("task graph '" + graph.anchor + "' has the edge (" + std::to_string(from) +
                    ", " + std::to_string(to) + "), not (smaller, larger) within its " +
                    std::to_string(nodes) + " nodes");
      // A repeated edge would be counted twice in the degrees and in Â.
      if (edgeIndex > 0 && !(graph.edges[edgeIndex - 1] < graph.edges[edgeIndex]))
        throw Error("task graph '" + graph.anchor + "' lists its edges unsorted or twice, at (" +
                    std::to_string(from) + ", " + std::to_string(to) + ")");
      const std::pair<int, int> edge{offset + from, offset + to};
      if (removedEdges == nullptr || removedEdges->count(edge) == 0)
        batch.edges.push_back(edge);
    }
  }
  batch.adjacency = normalizedAdjacency(batch.nodeCount(), batch.edges);
  return batch;
}

} // namespace clustune::gae
