// The fusion partitioner (DESIGN §4.2): cuts a simplified operator graph into tuning tasks, one per
// fused subgraph, with TVM's FuseOps rules driven by a post-dominator tree:
//   phase 0: an OutEWiseFusable node (Conv, Gemm, MatMul) absorbs the ElemWise/Broadcast nodes up
//            to its immediate post-dominator when every path there is such nodes (bias, activation,
//            residual add, the GELU diamond), and keeps extending from the absorbed node;
//   phase 1: ElemWise/Broadcast/Injective groups fuse forward up to their immediate
//            post-dominator when that is ElemWise/Broadcast/Injective or CommReduce; a group with a
//            CommReduce absorbs what comes before it but never fuses further forward;
//   Opaque nodes stand alone.
// Fusing everything on every path up to a post-dominator keeps each group convex, so the groups
// form a DAG (asserted). clustune-partition runs partition() per model, then mergeTasks().
#pragma once

#include "graph/Graph.h"
#include "graph/Task.h"

#include <vector>

namespace clustune::graph {

// Post-dominator of nodes whose results leave the graph (graph outputs, or no reader at all).
constexpr NodeId kVirtualSink = -1;

// For each node, its immediate post-dominator over the node DAG, or kVirtualSink. Erased nodes get
// kVirtualSink.
std::vector<NodeId> immediatePostDominators(const Graph& graph);

// Where one occurrence of a task sits in its graph: the graph values that feed the task's
// inputs and receive its outputs, in the task's canonical order. The graph executor runs a
// model as its occurrences, in order.
struct TaskOccurrence {
  std::string key;
  std::vector<ValueId> inputs;
  std::vector<ValueId> outputs;
  std::vector<NodeId> nodes; // the graph nodes of the task's nodes, in canonical order
};

// One task per fused group, in an execution order (every group after the groups it reads);
// not merged, so a block that repeats in the model yields equal tasks (same key) with weight 1
// each. Each task's weights are {graph.name: 1}. With `occurrences`, also appends one
// occurrence per task, in the same order.
std::vector<Task> partition(const Graph& graph, std::vector<TaskOccurrence>* occurrences = nullptr);

// Merges tasks with equal keys, in one or many models: per-model weights are summed and the
// first-seen order of keys is kept.
std::vector<Task> mergeTasks(std::vector<Task> tasks);

} // namespace clustune::graph
