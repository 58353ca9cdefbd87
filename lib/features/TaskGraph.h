// A task as an attributed graph, the input of the graph autoencoder (DESIGN §6, issue 6): one
// node per operator of the task and one per external tensor it reads (an activation or a
// constant weight, so that a one-operator task is still a graph), undirected edges along the
// data flow, and one row of raw node features per node. The features are not standardised
// here: the GAE model owns the column statistics (lib/gae), because they must be those of its
// training set. docs/features.md lists every column.
#pragma once

#include "graph/Task.h"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace clustune::features {

// Bumped whenever a node feature's definition or position changes; GAE model files record it.
inline constexpr int kTaskGraphFeatureVersion = 1;

struct TaskGraph {
  std::size_t nodeCount = 0;
  std::size_t featureCount = 0;
  // Row-major, nodeCount × featureCount. Nodes: the task's operators in canonical order
  // (graph::Task::nodes), then its inputs in order (graph::Task::inputs).
  std::vector<float> features = {};
  // Undirected, each edge once as (smaller node, larger node), sorted, no self loops.
  std::vector<std::pair<int, int>> edges = {};
  std::string anchor = {}; // the task's anchor op, for reports
};

TaskGraph taskGraph(const graph::Task& task);

// The column names, featureCount of them, e.g. "op=Conv", "pattern=CommReduce",
// "log2_output_elements", "conv_kernel_h", "matmul_k".
const std::vector<std::string>& taskGraphFeatureNames();

} // namespace clustune::features
