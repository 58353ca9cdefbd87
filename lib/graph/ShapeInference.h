// clustune's own type and shape inference over graph::Graph, for every operator in the op
// registry, at ONNX opsets 1 to 21. The importer runs it instead of ONNX's, so that what imports
// does not depend on the ONNX library's version. Shape arithmetic is evaluated on the way: a
// node whose inputs are all known (constants, Shape and Size of static shapes, and results
// evaluated before it) gets its value computed, so that the Reshape, Slice, Expand, Tile, Pad,
// Split and ConstantOfShape fed by Shape → Gather → Concat chains get static shapes. The graph
// itself is not changed beyond types and shapes: folding into constants is simplify()'s job.
#pragma once

#include "graph/Graph.h"

#include <string>
#include <vector>

namespace clustune::graph {

// The newest opset whose operator definitions the rules follow.
constexpr int kNewestOpset = 21;

// Sets dtype and shape of every node output in topological order. Graph inputs and constants
// must already be typed and shaped. Throws clustune::Error naming the node when a node's inputs,
// attributes or input count do not fit its operator, or when an output shape would depend on
// data only known at run time.
void inferShapes(Graph& graph, int opset);

// Operators of the registry without a shape rule: empty unless a row was added to one table only.
std::vector<std::string> operatorsWithoutShapeRule();

} // namespace clustune::graph
