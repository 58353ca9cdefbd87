// clustune saves its learned models (the cost-model MLPs, later the graph autoencoder) as small
// ONNX graphs so that any ONNX tool (ONNX Runtime, Netron) can open and run them. This file is
// the generic part: a model held as plain data (nodes, float and int64 initializers, metadata)
// that callers compose and tests inspect, and the code that writes and reads it. The protobuf
// types stay inside OnnxFile.cpp. docs/model-files.md describes the layout of the files.
#pragma once

#include "nn/Parameter.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace clustune::nn {

// Written as the model's producer_version; bump it when the layout of clustune's files changes.
inline constexpr const char* kOnnxProducerVersion = "1";
// The metadata key that says which kind of model a file holds (e.g. "costmodel.mlp").
inline constexpr const char* kOnnxKindKey = "clustune.kind";

struct OnnxNode {
  std::string opType = {}; // default (ai.onnx) domain, opset 13
  std::vector<std::string> inputs = {};
  std::vector<std::string> outputs = {};
  std::map<std::string, std::int64_t> intAttributes = {};
  std::map<std::string, std::vector<std::int64_t>> intListAttributes = {};
  std::map<std::string, float> floatAttributes = {};
};

// A float tensor at the graph's boundary.
struct OnnxValueInfo {
  std::string name;
  std::vector<std::int64_t> shape; // -1: a symbolic dimension, named by dimNames
  // Empty, or one entry per dimension: dimNames[i] names dimension i where shape[i] == -1 (an
  // empty name leaves that dimension unknown) and is ignored elsewhere. Read back files carry
  // names only when some dimension is symbolic, with "" for the fixed ones.
  std::vector<std::string> dimNames;
};

// A model under construction; kept in plain data so that tests can inspect it.
struct OnnxGraph {
  std::string name;
  std::vector<OnnxValueInfo> inputs, outputs;
  std::vector<OnnxNode> nodes;
  // Float; a Matrix with rows() == 1 may be stored as 1-D when listed in oneDimensional.
  std::vector<std::pair<std::string, Matrix>> initializers;
  // Initializers stored with shape [cols] instead of [rows, cols].
  std::set<std::string> oneDimensional;
  // 1-D int64 initializers, for operator inputs such as ReduceSum's axes.
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> int64Initializers;
  std::map<std::string, std::string> metadata; // ModelProto.metadata_props
  // Set by loadOnnxGraph for error messages; never written.
  std::string sourceFile;
};

// Writes opset 13 (default domain), ir_version 7, producer_name "clustune", producer_version =
// kOnnxProducerVersion, atomically (temporary file + rename). Throws clustune::Error on I/O
// failure and on a graph that cannot be written (duplicate initializer names, a 1-D initializer
// with more than one row, dimNames that do not match the shape).
void saveOnnxGraph(const std::string& path, const OnnxGraph& graph);

// Reads back a file written by saveOnnxGraph. Throws clustune::Error (with the file) when it
// does not parse as ONNX, was written by another producer, holds a model of another kind than
// `expectedKind` (metadata "clustune.kind"), or uses something saveOnnxGraph never writes (an
// initializer that is neither float with at most 2 dimensions nor 1-D int64, a non-float graph
// input or output, an attribute that is not an int, ints or float, an operator domain).
OnnxGraph loadOnnxGraph(const std::string& path, const std::string& expectedKind);

// An initializer by name, or an Error naming the missing one and the file.
const Matrix& initializer(const OnnxGraph& graph, const std::string& name);
// The float initializer `name`, which must be rows×cols, or an Error naming it, both shapes and
// the file. Loaders read the tensors that bound an architecture's sizes through it before they
// allocate the model, so that metadata cannot ask for more memory than the file itself holds.
Matrix shapedInitializer(const OnnxGraph& graph, const std::string& name, std::int64_t rows,
                         std::int64_t cols);
const std::vector<std::int64_t>& int64Initializer(const OnnxGraph& graph, const std::string& name);
// A metadata entry holding an integer (an architecture size, a feature version), or
// clustune::Error naming the key and the file when it is missing or not an integer.
int metadataInteger(const OnnxGraph& graph, const std::string& key);

} // namespace clustune::nn
