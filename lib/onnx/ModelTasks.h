// The tuning tasks of ONNX model files (DESIGN §4.2), as clustune-partition and clustune-tune
// take them: each model imported, simplified and partitioned, equal subgraphs merged with
// per-model occurrence weights, in NCHW or in the blocked layout NCHW[x]c.
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

// Throws clustune::Error naming the file for anything import or simplification refuses. A
// `channelBlock` other than 0 converts convolutions to the blocked layout NCHW[x]c after
// simplification (graph/BlockedLayout.h).
ModelTasks partitionModelFile(const std::string& path, const ImportOptions& options,
                              std::int64_t channelBlock = 0);

// The channel block of a `--layout` flag: "NCHW" gives 0, "NCHW16c" 16. Throws clustune::Error
// for anything else.
std::int64_t channelBlockFromFlag(const std::string& layout);

} // namespace clustune::onnx_import
