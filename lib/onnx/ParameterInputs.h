// Which graph inputs of an ONNX model an operator reads as a parameter rather than as data (the
// conformance runner specialises a model on those, as TVM's frontend does with freeze_params).
#pragma once

#include <set>
#include <string>

namespace clustune::onnx_import {

// The graph inputs read as Resize's roi or scales (float tensors that fix the output shape and
// the coordinate mapping). Throws Error when the file is not an ONNX model.
std::set<std::string> parameterInputs(const std::string& path);

} // namespace clustune::onnx_import
