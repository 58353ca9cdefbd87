// The tuning tasks of ONNX model files (DESIGN §4.2), as clustune-partition and clustune-tune
// take them: each model imported, simplified and partitioned, equal subgraphs merged with
// per-model occurrence weights.
#pragma once

#include "graph/Task.h"
#include "onnx/Importer.h"

#include <string>
#include <vector>

namespace clustune::onnx_import {

struct ModelTasks {
  std::string model; // the graph's name
  std::size_t nodes = 0;
  std::vector<graph::Task> tasks; // merged within the model
};

// Throws clustune::Error naming the file for anything import or simplification refuses.
ModelTasks partitionModelFile(const std::string& path, const ImportOptions& options);

} // namespace clustune::onnx_import
