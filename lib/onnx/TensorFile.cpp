// See TensorFile.h.
#include "onnx/TensorFile.h"

#include "onnx/TensorConversion.h"
#include "support/Error.h"
#include "support/Files.h"

#include <onnx/onnx_pb.h>

namespace clustune::onnx_import {

NamedTensor readTensorFile(const std::string& path) {
  const std::string bytes = readFileBytes(path);
  onnx::TensorProto tensor;
  if (bytes.empty() || !tensor.ParseFromString(bytes))
    throw Error("not a valid ONNX TensorProto file", {.file = displayPath(path)});
  try {
    return {tensor.name(), tensorDataFromProto(tensor)};
  } catch (const Error& error) {
    throw error.withContext({.file = displayPath(path)});
  }
}

void writeTensorFile(const std::string& path, const std::string& name, const te::TensorData& data) {
  onnx::TensorProto tensor;
  fillTensorProto(data, name, tensor);
  std::string bytes;
  if (!tensor.SerializeToString(&bytes))
    throw Error("cannot serialise tensor '" + name + "'", {.file = path});
  OutputFile output(path);
  output.stream().write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  output.commit();
}

} // namespace clustune::onnx_import
