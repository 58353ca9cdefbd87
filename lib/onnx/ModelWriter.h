// Writing a model back out with the weights clustune used: `clustune-run --save-weights` hands
// another runtime (ONNX Runtime in scripts/ort_compare.py) exactly the numbers clustune ran
// with, since the shipped models carry no trained weights.
#pragma once

#include "graph/Graph.h"

#include <string>

namespace clustune::onnx_import {

// Copies the model at `modelPath`, replacing every initializer whose name is a constant of
// `graph` with data by that data, stored inline. The output is written atomically.
void saveModelWithWeights(const std::string& modelPath, const graph::Graph& graph,
                          const std::string& outputPath);

} // namespace clustune::onnx_import
