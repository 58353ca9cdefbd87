// ONNX's own shape inference (libonnx 1.12, with data propagation), run by the importer behind
// guards: libonnx's inference functions trust their inputs, and five inputs found by
// fuzz-onnx_import crashed them. The guards refuse what would crash, and check what ONNX leaves
// to a generic message (a kernel or pooling window larger than its padded input).
#pragma once

#include <string>

namespace onnx {
class ModelProto;
}

namespace clustune::onnx_import {

// Infers the type and shape of every value in place. Throws clustune::Error with `file` and the
// first node that failed.
void inferShapesGuarded(onnx::ModelProto& model, const std::string& file);

} // namespace clustune::onnx_import
