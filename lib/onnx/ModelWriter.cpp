// See ModelWriter.h.
#include "onnx/ModelWriter.h"

#include "onnx/TensorConversion.h"
#include "support/Error.h"
#include "support/Files.h"

#include <onnx/onnx_pb.h>
#include <unordered_map>

namespace clustune::onnx_import {

void saveModelWithWeights(const std::string& modelPath, const graph::Graph& graph,
                          const std::string& outputPath) {
  onnx::ModelProto model;
  if (!model.ParseFromString(readFileBytes(modelPath)))
    throw Error("not a valid ONNX model", {.file = displayPath(modelPath)});
  std::unordered_map<std::string, const graph::Value*> constants;
  for (const graph::Value& value : graph.values)
    if (value.kind == graph::ValueKind::Constant && value.hasData)
      constants[value.name] = &value;
  for (auto& initializer : *model.mutable_graph()->mutable_initializer()) {
    auto found = constants.find(initializer.name());
    if (found == constants.end())
      continue;
    const graph::Value& value = *found->second;
    te::TensorData data(value.dtype, value.shape);
    const bool floating = graph::isFloatingPoint(value.dtype);
    for (std::int64_t i = 0; i < value.elements(); ++i)
      data.set(i, floating ? value.floatData[i] : static_cast<double>(value.intData[i]));
    fillTensorProto(data, initializer.name(), initializer);
  }
  std::string bytes;
  if (!model.SerializeToString(&bytes))
    throw Error("cannot serialise the model (larger than 2 GiB?)", {.file = outputPath});
  OutputFile output(outputPath);
  output.stream().write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  output.commit();
}

} // namespace clustune::onnx_import
