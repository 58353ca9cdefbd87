// Conversion of ONNX TensorProto payloads, shared by the model importer (initializers, Constant
// nodes) and the tensor-file reader. Internal to lib/onnx: it names the protobuf type, which
// only lib/onnx's .cpp files may see in full.
#pragma once

#include "graph/Graph.h"
#include "te/TensorData.h"

#include <optional>
#include <string>

namespace onnx {
class TensorProto;
}

namespace clustune::onnx_import {

std::optional<graph::DataType> dataTypeFromOnnx(int type);

// The tensor as a constant graph::Value; hasData is false when the payload is external or
// absent. Throws clustune::Error (without file context) on a malformed tensor.
graph::Value decodeTensor(const onnx::TensorProto& tensor, const std::string& name);

// Writes `data` into `tensor` (dims, element type and raw little-endian payload).
void fillTensorProto(const te::TensorData& data, const std::string& name,
                     onnx::TensorProto& tensor);

// The tensor's data; throws clustune::Error when it has none (external, missing) or is float16.
te::TensorData tensorDataFromProto(const onnx::TensorProto& tensor);

} // namespace clustune::onnx_import
