// Einsum equations (ONNX's numpy-style subscripts): parsed against the operand shapes into one
// label per operand dimension, the output's labels and each label's extent. Shared by the
// lowering (te/topi/MatMul.cpp) and the FLOP count (OpCost.cpp).
#pragma once

#include "graph/Graph.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace clustune::graph {

// Letters label themselves (their character code); the dimensions an ellipsis stands for get
// the labels -1, -2, ... from the left of the longest ellipsis, right-aligned across operands
// (numpy broadcasting).
struct EinsumEquation {
  std::vector<std::vector<int>> operandLabels; // one label per operand dimension
  std::vector<int> outputLabels;
  std::vector<int> reducedLabels;      // labels not in the output, in first-use order
  std::map<int, std::int64_t> extents; // per label; broadcast ellipsis extents are the max
};

// Throws Error (without a node; callers add it) on a malformed equation, a letter used twice in
// the output or not in any operand, a rank that does not match the subscripts, or extents that
// disagree.
EinsumEquation parseEinsum(const std::string& equation, const std::vector<Shape>& operandShapes);

// 2 operations per term of a contraction (one multiply per extra operand, one add when labels
// are summed): the product of every label's extent, times (operands - 1), plus that product
// again when some label is reduced. A transpose or diagonal costs 0.
std::int64_t einsumFlops(const EinsumEquation& equation);

} // namespace clustune::graph
