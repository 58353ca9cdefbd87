// See ModelTasks.h.
#include "onnx/ModelTasks.h"

#include "graph/Partition.h"
#include "graph/Simplify.h"
#include "support/Files.h"

namespace clustune::onnx_import {

ModelTasks partitionModelFile(const std::string& path, const ImportOptions& options) {
  graph::Graph model = importModel(path, options);
  try {
    graph::simplify(model);
  } catch (const Error& error) {
    throw error.withContext({.file = displayPath(path)});
  }
  ModelTasks result{.model = model.name, .nodes = model.nodes.size(), .tasks = {}};
  result.tasks = graph::mergeTasks(graph::partition(model));
  return result;
}

} // namespace clustune::onnx_import
