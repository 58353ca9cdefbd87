// An MLP cost model as a small ONNX file (docs/model-files.md): the graph scores one program
// from its statements' features, [statements × features] → [1 × 1], with the feature scale,
// encoder, ReduceSum over statements, residual blocks and head as ONNX operators, so that ONNX
// Runtime or Netron can open it. The architecture and the program-feature version travel in
// the model's metadata; loading refuses files of another kind or feature version.
#pragma once

#include "costmodel/MlpCostModel.h"

#include <map>
#include <string>

namespace clustune::costmodel {

inline constexpr const char* kMlpModelKind = "costmodel.mlp";

// `metadata` is stored beside the architecture (e.g. the training data and seed).
void saveMlpCostModel(const std::string& path, const MlpCostModel& model,
                      const std::map<std::string, std::string>& metadata = {});

MlpCostModel loadMlpCostModel(const std::string& path);

} // namespace clustune::costmodel
