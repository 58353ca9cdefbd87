// Seeded stand-in weights for models shipped without their trained weights (models/README.md).
// Tuning needs shapes only, but running a model (clustune-run, its --check, comparisons with
// ONNX Runtime) needs numbers that keep activations finite through deep networks: values are
// drawn by the role of the constant, before simplification, so that BatchNormalization folding
// computes from them and --save-weights can hand the very same numbers to another runtime.
#pragma once

#include "graph/Graph.h"

#include <cstdint>

namespace clustune::graph {

// Gives data to every constant that has none. A weight of fan-in n (all but its first
// dimension) is uniform in ±1/sqrt(n); BatchNormalization and LayerNormalization scales and
// variances are uniform in [0.5, 1.5], their biases and means in ±0.1; integer constants are 0.
// Each constant's stream depends on the seed and its name only. Returns how many were filled.
int generateMissingWeights(Graph& graph, std::uint64_t seed);

} // namespace clustune::graph
