// ONNX import (DESIGN §4.1): reads a model file, validates it, fixes its input shapes (dynamic
// dimensions are resolved by --batch or --input-shape), converts it into graph::Graph and infers
// every shape with clustune's own rules (graph/ShapeInference.h), so that all are static. The
// caller usually runs graph::simplify next. The ONNX protobuf headers stay inside Importer.cpp.
#pragma once

#include "graph/Graph.h"
#include "te/TensorData.h"

#include <map>
#include <optional>
#include <string>
#include <utility>

namespace clustune::onnx_import {

struct ImportOptions {
  // Replaces every dynamic dimension at axis 0 of a graph input.
  std::optional<std::int64_t> batch = {};
  // Replaces the whole shape of the named graph inputs.
  std::map<std::string, graph::Shape> inputShapes = {};
  // Binds the named graph inputs to these values: they become initializers before shape
  // inference, so shapes computed from them (a Reshape's target, Gather's indices) are static.
  // A static compiler specialises on such inputs, as TVM's ONNX frontend does with
  // freeze_params.
  std::map<std::string, te::TensorData> constantInputs = {};
  // Also runs ONNX's own shape inference (libonnx, opsets up to 17) and fails when it gives any
  // value another type or static shape than clustune's rules: a check for tests and
  // conformance runs.
  bool crossCheckOnnxInference = false;
};

// How the cross-check's error message begins, for callers that count a disagreement as a defect.
inline constexpr const char* kInferenceDisagreement = "shape inference disagrees with ONNX's";

// The newest default-domain opset that the importer accepts.
int maxSupportedOpset();

// Imports `path` ("-" for stdin). Throws clustune::Error naming the file (and node) on any
// problem: unreadable or malformed file, unsupported opset or operator, dynamic shapes left
// unresolved, external data outside the model's folder.
graph::Graph importModel(const std::string& path, const ImportOptions& options = {});

// Parses "name=1x3x224x224" (a "scalar" shape is written "name="). Throws Error on bad syntax.
std::pair<std::string, graph::Shape> parseInputShape(const std::string& text);

// The options of the tools' --batch and --input-shape flags (repeatable NAME=SHAPE texts).
ImportOptions importOptionsFromFlags(std::optional<std::int64_t> batch,
                                     const std::vector<std::string>& inputShapes);

// The model name used in tasks and reports: the file name without directory and ".onnx".
std::string modelNameFromPath(const std::string& path);

} // namespace clustune::onnx_import
