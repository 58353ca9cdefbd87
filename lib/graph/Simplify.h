// Graph simplification after import (DESIGN §4.1): removes pass-through ops (Identity,
// Dropout), folds constants, turns constant operand inputs (Reshape's shape, Slice's starts,
// Clip's bounds, ...) into attributes so a task is described by attributes alone, folds
// BatchNormalization into the preceding Conv or Gemm, makes attributes explicit (defaults, positive
// axes), gives every node its pattern kind, and
// drops dead code.
#pragma once

#include "graph/Graph.h"

namespace clustune::graph {

struct SimplifyStatistics {
  int passThroughRemoved = 0;
  int constantsFolded = 0;
  int operandsToAttributes = 0;
  int batchNormsFolded = 0;
  int nodesBefore = 0;
  int nodesAfter = 0;
};

// Throws clustune::Error naming the node when an operand that must be constant is not.
SimplifyStatistics simplify(Graph& graph);

// Makes attributes explicit and canonical: ONNX defaults filled in, negative axes made
// positive, auto_pad resolved into pads (NormalizeAttributes.cpp).
void normalizeAttributes(Graph& graph);

// Sets Node::pattern from the op registry, refining element-wise ops whose input shapes differ
// from the output shape to Broadcast.
void assignPatterns(Graph& graph);

// Folds BatchNormalization nodes whose input comes only from a Conv or Gemm into that node's
// weight and bias; exposed for tests. Returns the number folded.
int foldBatchNorms(Graph& graph);

} // namespace clustune::graph
