// See ModelTasks.h.
#include "onnx/ModelTasks.h"

#include "graph/BlockedLayout.h"
#include "graph/Partition.h"
#include "graph/Simplify.h"
#include "support/Files.h"

namespace clustune::onnx_import {

ModelTasks partitionModelFile(const std::string& path, const ImportOptions& options,
                              std::int64_t channelBlock) {
  graph::Graph model = importModel(path, options);
  try {
    graph::simplify(model);
    graph::convertToBlockedLayout(model, channelBlock);
  } catch (const Error& error) {
    throw error.withContext({.file = displayPath(path)});
  }
  ModelTasks result{.model = model.name, .nodes = model.nodes.size(), .tasks = {}};
  result.tasks = graph::mergeTasks(graph::partition(model));
  return result;
}

std::int64_t channelBlockFromFlag(const std::string& layout) {
  const auto block = graph::parseChannelLayout(layout);
  if (!block || *block == 1 || *block > 64)
    throw Error("--layout '" + layout + "' is not NCHW or NCHW<x>c with a block of 2 to 64 " +
                "channels (NCHW16c for AVX-512, NCHW8c for AVX2)");
  return *block;
}

} // namespace clustune::onnx_import
