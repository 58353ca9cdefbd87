// Constant folding over graph::Graph. With static shapes, the shape arithmetic that exporters
// emit (Shape → Gather → Unsqueeze → Concat → Reshape, ConstantOfShape, Range, ...) computes
// only constants; folding it leaves the graph with the real computation alone, so that the
// partitioner never sees int64 bookkeeping as tuning tasks.
#pragma once

#include "graph/Graph.h"

namespace clustune::graph {

// Replaces every node that can be evaluated now (all inputs constants with data, or Shape/Size
// of any value) by constants, in one topological sweep, so chains fold completely. Results
// with more than `maxElements` elements are not folded (they would be weights, not shapes).
// Returns the number of nodes folded; the caller runs Graph::compact afterwards.
int foldConstants(Graph& graph, std::int64_t maxElements = 1 << 16);

// Computes the data of `output` (dtype and shape already set) from the node's inputs (nullptr for
// an omitted optional one; Shape and Size need only their input's shape). False when the
// operator or this use of it is not evaluated at compile time. Throws clustune::Error without
// node context when the inputs are invalid (a Gather index out of range).
bool evaluateNode(const Node& node, const std::vector<const Value*>& inputs, Value& output);

} // namespace clustune::graph
