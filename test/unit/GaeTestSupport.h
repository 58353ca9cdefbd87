// Task graphs built by hand for the graph-autoencoder tests (lib/features/TaskGraph.h's struct,
// without the feature extractor): paths, stars and a toy data set whose node features are
// correlated with its structure, so that a GAE can learn to predict held-out edges.
#pragma once

#include "features/TaskGraph.h"
#include "support/Random.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace clustune::gae::testing {

// Features drawn uniformly in [-1, 1].
inline features::TaskGraph randomFeatureGraph(std::size_t nodes, std::size_t featureCount,
                                              std::vector<std::pair<int, int>> edges, Rng& rng) {
  features::TaskGraph graph;
  graph.nodeCount = nodes;
  graph.featureCount = featureCount;
  for (std::size_t index = 0; index < nodes * featureCount; ++index)
    graph.features.push_back(static_cast<float>(rng.uniform(-1.0, 1.0)));
  graph.edges = std::move(edges);
  return graph;
}

inline std::vector<std::pair<int, int>> pathEdges(int nodes) {
  std::vector<std::pair<int, int>> edges;
  for (int node = 0; node + 1 < nodes; ++node)
    edges.emplace_back(node, node + 1);
  return edges;
}

// Node 0 is the centre.
inline std::vector<std::pair<int, int>> starEdges(int nodes) {
  std::vector<std::pair<int, int>> edges;
  for (int leaf = 1; leaf < nodes; ++leaf)
    edges.emplace_back(0, leaf);
  return edges;
}

// The toy data set of the training tests, two kinds of graphs whose node features follow their
// structure: "clustered" graphs (two or three cliques of 3-5 nodes joined in a row by single
// bridge edges), whose nodes carry their clique's random code, and stars. Five features per
// node: the kind, the degree and a 3-dimensional clique code (0 in stars), plus a little noise.
// Chains would be a poor toy: a held-out chain edge leaves its two ends in different pieces, so
// after the GCN's smoothing they look like nodes two steps apart, and no GAE predicts it.
inline constexpr std::size_t kToyFeatureCount = 5;

inline features::TaskGraph toyGraph(const std::vector<std::pair<int, int>>& edges, int nodes,
                                    const std::vector<std::vector<double>>& nodeCodes,
                                    bool clustered, Rng& rng) {
  features::TaskGraph graph;
  graph.nodeCount = static_cast<std::size_t>(nodes);
  graph.featureCount = kToyFeatureCount;
  graph.edges = edges;
  std::sort(graph.edges.begin(), graph.edges.end());
  graph.anchor = clustered ? "clustered" : "star";
  std::vector<int> degree(static_cast<std::size_t>(nodes), 0);
  for (const auto& [from, to] : graph.edges) {
    ++degree[static_cast<std::size_t>(from)];
    ++degree[static_cast<std::size_t>(to)];
  }
  for (int node = 0; node < nodes; ++node) {
    const std::vector<double>& code = nodeCodes[static_cast<std::size_t>(node)];
    const double values[kToyFeatureCount] = {
        clustered ? 1.0 : 0.0, static_cast<double>(degree[node]), code[0], code[1], code[2]};
    for (const double value : values)
      graph.features.push_back(static_cast<float>(value + rng.uniform(-0.05, 0.05)));
  }
  return graph;
}

inline features::TaskGraph clusteredToyGraph(int cliques, Rng& rng) {
  std::vector<std::pair<int, int>> edges;
  std::vector<std::vector<double>> nodeCodes;
  int nodes = 0;
  for (int clique = 0; clique < cliques; ++clique) {
    const int size = static_cast<int>(rng.uniformInt(3, 5));
    const std::vector<double> code{rng.normal(), rng.normal(), rng.normal()};
    for (int i = nodes; i < nodes + size; ++i)
      for (int j = i + 1; j < nodes + size; ++j)
        edges.emplace_back(i, j);
    if (nodes > 0)
      edges.emplace_back(nodes - 1, nodes); // the bridge from the previous clique
    nodeCodes.insert(nodeCodes.end(), static_cast<std::size_t>(size), code);
    nodes += size;
  }
  return toyGraph(edges, nodes, nodeCodes, true, rng);
}

inline features::TaskGraph starToyGraph(int nodes, Rng& rng) {
  return toyGraph(starEdges(nodes), nodes,
                  std::vector<std::vector<double>>(static_cast<std::size_t>(nodes), {0, 0, 0}),
                  false, rng);
}

// `count` graphs, alternately clustered (2-3 cliques) and stars of 5-9 nodes.
inline std::vector<features::TaskGraph> toyGraphs(int count, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<features::TaskGraph> graphs;
  for (int index = 0; index < count; ++index) {
    if (index % 2 == 0)
      graphs.push_back(clusteredToyGraph(static_cast<int>(rng.uniformInt(2, 3)), rng));
    else
      graphs.push_back(starToyGraph(static_cast<int>(rng.uniformInt(5, 9)), rng));
  }
  return graphs;
}

inline std::vector<const features::TaskGraph*>
pointersTo(const std::vector<features::TaskGraph>& graphs) {
  std::vector<const features::TaskGraph*> pointers;
  for (const features::TaskGraph& graph : graphs)
    pointers.push_back(&graph);
  return pointers;
}

} // namespace clustune::gae::testing
