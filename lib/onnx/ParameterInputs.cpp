// See ParameterInputs.h.
#include "onnx/ParameterInputs.h"

#include "support/Error.h"
#include "support/Files.h"

#include <onnx/onnx_pb.h>

namespace clustune::onnx_import {

std::set<std::string> parameterInputs(const std::string& path) {
  const std::string bytes = readFileBytes(path);
  onnx::ModelProto model;
  if (bytes.empty() || !model.ParseFromString(bytes) || !model.has_graph())
    throw Error("not a valid ONNX model", {.file = displayPath(path)});
  std::set<std::string> graphInputs;
  for (const auto& input : model.graph().input())
    graphInputs.insert(input.name());
  std::set<std::string> parameters;
  for (const auto& node : model.graph().node()) {
    if (node.op_type() != "Resize")
      continue;
    for (int slot = 1; slot <= 2 && slot < node.input_size(); ++slot)
      if (graphInputs.count(node.input(slot)))
        parameters.insert(node.input(slot));
  }
  return parameters;
}

} // namespace clustune::onnx_import
