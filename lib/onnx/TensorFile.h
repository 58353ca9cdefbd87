// Reading and writing single ONNX TensorProto files (.pb), the format of the ONNX backend test
// data (test_data_set_*/input_0.pb) and of tensors exchanged with other runtimes.
#pragma once

#include "te/TensorData.h"

#include <string>

namespace clustune::onnx_import {

struct NamedTensor {
  std::string name; // the TensorProto's name; may be empty
  te::TensorData data;
};

// Throws clustune::Error naming the file on a parse error, an unsupported dtype, a payload
// whose size does not match the shape, or external data.
NamedTensor readTensorFile(const std::string& path);

// Writes one tensor as a TensorProto file (atomically).
void writeTensorFile(const std::string& path, const std::string& name, const te::TensorData& data);

} // namespace clustune::onnx_import
