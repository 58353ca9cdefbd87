// See Importer.h. Import runs in this order, so that each problem gets the most specific
// message: parse and validate the protobuf, check the opset and that every operator has an
// import rule (and, at the opsets libonnx knows, fits its schema), check data flow and
// external-data locations, resolve input shapes, decode the constants, convert to
// graph::Graph, and infer every shape with clustune's own rules (graph/ShapeInference.h, which
// evaluates Shape→Gather→Concat→Reshape chains on the way so that they give static shapes).
// ONNX's own inference runs only on request, as a cross-check (ImportOptions).
#include "onnx/Importer.h"

#include "graph/ShapeInference.h"
#include "onnx/OnnxInference.h"
#include "onnx/TensorConversion.h"
#include "support/Error.h"
#include "support/Files.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <spdlog/spdlog.h>
#include <unordered_map>
#include <unordered_set>

namespace clustune::onnx_import {
namespace {

using graph::DataType;
using graph::kNewestOpset;
using graph::Shape;

// Debian's libonnx 1.12 carries operator schemas up to opset 17: nodes of newer opsets are
// checked by the shape rules alone.
constexpr int kNewestSchemaOpset = 17;

// Operators of the registry defined after kNewestSchemaOpset, with the opset that added them.
constexpr std::pair<const char*, int> kOperatorsAfterSchemas[] = {{"Gelu", 20}};

struct ImportContext {
  std::string file; // for messages
  std::filesystem::path modelDirectory;

  Error error(const std::string& message, const std::string& node = {}) const {
    return Error(message, {.file = file, .node = node});
  }
};

DataType requireType(int type, const ImportContext& context, const std::string& what) {
  auto converted = dataTypeFromOnnx(type);
  if (!converted)
    throw context.error(
        what + " has unsupported element type " +
        onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(type)));
  return *converted;
}

std::string nodeLabel(const onnx::NodeProto& node, int index) {
  return node.name().empty() ? node.op_type() + " #" + std::to_string(index) : node.name();
}

onnx::ModelProto parseModel(const std::string& bytes, const ImportContext& context) {
  if (bytes.empty())
    throw context.error("empty file, not an ONNX model");
  onnx::ModelProto model;
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()) ||
      !model.ParseFromString(bytes))
    throw context.error("not a valid ONNX model (protobuf parse failed: truncated or not ONNX)");
  // Protobuf accepts many byte strings that are not models; insist on the parts a model has.
  if (model.ir_version() <= 0 || !model.has_graph() || model.opset_import_size() == 0)
    throw context.error("not a valid ONNX model (no ir_version, graph or opset_import)");
  return model;
}

int defaultDomainOpset(const onnx::ModelProto& model, const ImportContext& context) {
  for (const auto& opset : model.opset_import())
    if (opset.domain().empty() || opset.domain() == "ai.onnx")
      return static_cast<int>(opset.version());
  throw context.error("model imports no opset of the default ONNX domain");
}

// ONNX's checker message without its own prefix and the node dump it appends.
std::string schemaViolation(std::string message) {
  if (message.starts_with("[ValidationError] "))
    message.erase(0, std::strlen("[ValidationError] "));
  if (const auto dump = message.find("\n"); dump != std::string::npos)
    message.resize(dump);
  return message;
}

void checkOperators(const onnx::GraphProto& graph, int opset, const ImportContext& context) {
  for (int i = 0; i < graph.node_size(); ++i) {
    const auto& node = graph.node(i);
    // Before opset 13, Softmax, LogSoftmax and Hardmax flattened the trailing axes into one;
    // clustune implements the opset-13 semantics (one axis) only.
    if ((node.op_type() == "Softmax" || node.op_type() == "LogSoftmax" ||
         node.op_type() == "Hardmax") &&
        opset < 13)
      throw context.error(node.op_type() + " of opset " + std::to_string(opset) +
                              " (flattening semantics) is not supported; opset 13 or newer is",
                          nodeLabel(node, i));
    const bool defaultDomain = node.domain().empty() || node.domain() == "ai.onnx";
    const auto info = graph::lookupOp(node.op_type());
    if (!defaultDomain || !info || info->internal)
      throw context.error(
          "no import rule for operator '" +
              (defaultDomain ? node.op_type() : node.domain() + "::" + node.op_type()) + "'",
          nodeLabel(node, i));
    // ONNX's shape inference trusts a node's inputs, outputs and attributes to match its
    // schema: a Gather with one input crashed libonnx 1.12 (found by fuzz-onnx_import). The
    // cross-check still runs it, and the schemas catch attributes of the wrong type.
    const onnx::OpSchema* schema =
        onnx::OpSchemaRegistry::Schema(node.op_type(), std::min(opset, kNewestSchemaOpset), "");
    int introduced = schema ? 1 : kNewestOpset + 1;
    for (const auto& [op, since] : kOperatorsAfterSchemas)
      if (node.op_type() == op)
        introduced = since;
    if (introduced > opset)
      throw context.error("operator '" + node.op_type() + "' does not exist in opset " +
                              std::to_string(opset),
                          nodeLabel(node, i));
    if (opset > kNewestSchemaOpset)
      continue; // its schema may have changed since

    try {
      schema->Verify(node);
    } catch (const std::exception& error) {
      throw context.error(schemaViolation(error.what()), nodeLabel(node, i));
    }
  }
}

// Every node input names a graph input, an initializer or an earlier node's output. ONNX's shape
// inference looks inputs up without checking (a BatchNormalization whose variance had lost its
// initializer crashed libonnx 1.12; found by fuzz-onnx_import), so this runs before it.
void checkDataFlow(const onnx::GraphProto& graph, const ImportContext& context) {
  std::unordered_set<std::string> defined;
  for (const auto& input : graph.input())
    defined.insert(input.name());
  for (const auto& tensor : graph.initializer())
    defined.insert(tensor.name());
  for (int i = 0; i < graph.node_size(); ++i) {
    const auto& node = graph.node(i);
    for (const auto& input : node.input())
      if (!input.empty() && !defined.count(input))
        throw context.error("input '" + input + "' is not produced by any earlier node",
                            nodeLabel(node, i));
    for (const auto& output : node.output())
      defined.insert(output);
  }
}

void checkExternalData(const onnx::GraphProto& graph, const ImportContext& context) {
  for (const auto& tensor : graph.initializer()) {
    if (tensor.data_location() != onnx::TensorProto::EXTERNAL)
      continue;
    std::string location;
    for (const auto& entry : tensor.external_data())
      if (entry.key() == "location")
        location = entry.value();
    const std::filesystem::path path(location);
    bool escapes = location.empty() || path.is_absolute() || path.has_root_name();
    for (const auto& part : path)
      escapes = escapes || part == "..";
    if (escapes)
      throw context.error(
          "initializer '" + tensor.name() + "': external data location '" + location +
          "' escapes the model's folder (only relative paths inside it are allowed)");
    if (!std::filesystem::exists(context.modelDirectory / path))
      spdlog::debug("{}: external data '{}' of '{}' is absent; using shapes only", context.file,
                    location, tensor.name());
  }
}

// Fixes every graph input's shape (dynamic dims from --batch, whole shapes from --input-shape),
// and drops stale intermediate shapes so that shape inference recomputes them consistently.
// Turns the graph inputs named in options.constantInputs into initializers holding the values.
void bindConstantInputs(onnx::GraphProto& graph, const ImportOptions& options,
                        const ImportContext& context) {
  for (const auto& [name, data] : options.constantInputs) {
    auto* inputs = graph.mutable_input();
    auto found =
        std::find_if(inputs->begin(), inputs->end(),
                     [&](const onnx::ValueInfoProto& input) { return input.name() == name; });
    if (found == inputs->end())
      throw context.error("cannot bind '" + name + "': not a graph input");
    inputs->erase(found);
    fillTensorProto(data, name, *graph.add_initializer());
  }
}

void resolveInputShapes(onnx::GraphProto& graph, const ImportOptions& options,
                        const ImportContext& context) {
  std::unordered_map<std::string, bool> initializers;
  for (const auto& tensor : graph.initializer())
    initializers[tensor.name()] = true;
  std::vector<std::string> inputNames;
  bool batchUsed = false;
  for (auto& input : *graph.mutable_input()) {
    if (initializers.count(input.name()))
      continue;
    inputNames.push_back(input.name());
    if (!input.type().has_tensor_type())
      throw context.error("graph input '" + input.name() + "' is not a tensor");
    auto* tensorShape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
    if (auto override = options.inputShapes.find(input.name());
        override != options.inputShapes.end()) {
      tensorShape->clear_dim();
      for (auto extent : override->second)
        tensorShape->add_dim()->set_dim_value(extent);
      continue;
    }
    if (!input.type().tensor_type().has_shape())
      throw context.error("graph input '" + input.name() + "' has no shape; give --input-shape " +
                          input.name() + "=...");
    for (int axis = 0; axis < tensorShape->dim_size(); ++axis) {
      auto* dim = tensorShape->mutable_dim(axis);
      if (dim->has_dim_value() && dim->dim_value() > 0)
        continue;
      if (dim->has_dim_value() && dim->dim_value() == 0)
        throw context.error("graph input '" + input.name() +
                            "' has a zero-size dimension at axis " + std::to_string(axis) +
                            " (an empty tensor): there is nothing to compute; give --input-shape " +
                            input.name() + "=... with every dimension at least 1");
      const std::string symbol = dim->has_dim_param() ? "'" + dim->dim_param() + "'" : "?";
      if (axis == 0 && options.batch) {
        dim->set_dim_value(*options.batch);
        batchUsed = true;
        continue;
      }
      throw context.error("graph input '" + input.name() + "' has dynamic dimension " + symbol +
                          " at axis " + std::to_string(axis) + "; give " +
                          (axis == 0 ? "--batch N or " : "") + "--input-shape " + input.name() +
                          "=...");
    }
  }
  if (options.batch && !batchUsed)
    spdlog::warn("{}: --batch {} has no effect: no graph input has a dynamic batch dimension "
                 "(use --input-shape to change a static shape)",
                 context.file, *options.batch);
  for (const auto& [name, shape] : options.inputShapes)
    if (std::find(inputNames.begin(), inputNames.end(), name) == inputNames.end()) {
      std::string known;
      for (const auto& inputName : inputNames)
        known += (known.empty() ? "" : ", ") + inputName;
      throw context.error("--input-shape names '" + name +
                          "', which is not a graph input (inputs: " + known + ")");
    }
  graph.clear_value_info();
  for (auto& output : *graph.mutable_output())
    if (output.type().has_tensor_type())
      output.mutable_type()->mutable_tensor_type()->clear_shape();
}

graph::Value constantFromTensor(const onnx::TensorProto& tensor, const std::string& name,
                                const ImportContext& context) {
  try {
    return decodeTensor(tensor, name);
  } catch (const Error& error) {
    throw error.withContext({.file = context.file});
  }
}

graph::AttributeValue convertAttribute(const onnx::AttributeProto& attribute,
                                       const ImportContext& context, const std::string& node) {
  switch (attribute.type()) {
  case onnx::AttributeProto::INT:
    return attribute.i();
  case onnx::AttributeProto::FLOAT:
    return static_cast<double>(attribute.f());
  case onnx::AttributeProto::STRING:
    return attribute.s();
  case onnx::AttributeProto::INTS:
    return std::vector<std::int64_t>(attribute.ints().begin(), attribute.ints().end());
  case onnx::AttributeProto::FLOATS:
    return std::vector<double>(attribute.floats().begin(), attribute.floats().end());
  case onnx::AttributeProto::TENSOR: {
    // Only scalar tensors appear in supported ops' attributes (ConstantOfShape's fill value).
    graph::Value scalar = constantFromTensor(attribute.t(), attribute.name(), context);
    if (!scalar.hasData || scalar.elements() != 1)
      throw context.error("attribute '" + attribute.name() + "' must be a one-element tensor",
                          node);
    if (graph::isFloatingPoint(scalar.dtype))
      return scalar.floatData[0];
    return scalar.intData[0];
  }
  default:
    throw context.error("attribute '" + attribute.name() + "' has a type clustune cannot import",
                        node);
  }
}

// The value of a Constant node, from whichever of its value attributes is set.
graph::Value constantFromNode(const onnx::NodeProto& node, const std::string& name,
                              const ImportContext& context, const std::string& label) {
  for (const auto& attribute : node.attribute()) {
    graph::Value value;
    value.name = name;
    value.kind = graph::ValueKind::Constant;
    value.hasData = true;
    if (attribute.name() == "value")
      return constantFromTensor(attribute.t(), name, context);
    if (attribute.name() == "value_float") {
      value.floatData = {attribute.f()};
    } else if (attribute.name() == "value_floats") {
      value.floatData.assign(attribute.floats().begin(), attribute.floats().end());
      value.shape = {static_cast<std::int64_t>(value.floatData.size())};
    } else if (attribute.name() == "value_int") {
      value.dtype = DataType::Int64;
      value.intData = {attribute.i()};
    } else if (attribute.name() == "value_ints") {
      value.dtype = DataType::Int64;
      value.intData.assign(attribute.ints().begin(), attribute.ints().end());
      value.shape = {static_cast<std::int64_t>(value.intData.size())};
    } else {
      continue;
    }
    return value;
  }
  throw context.error("Constant node has no supported value attribute", label);
}

// Decoded before ONNX's shape inference, whose data propagation reads initializers and
// Constant nodes without checking their payload against their dims (an initializer of 4 floats
// declared with 42 crashed libonnx 1.12; found by fuzz-onnx_import). The initializers are
// handed on to convert(); Constant nodes are small and decoded again there.
std::vector<graph::Value> decodeConstants(const onnx::GraphProto& graph,
                                          const ImportContext& context) {
  for (int i = 0; i < graph.node_size(); ++i) {
    const auto& node = graph.node(i);
    if (node.op_type() == "Constant" && node.output_size() == 1)
      constantFromNode(node, node.output(0), context, nodeLabel(node, i));
  }
  std::vector<graph::Value> initializers;
  initializers.reserve(static_cast<std::size_t>(graph.initializer_size()));
  for (const auto& tensor : graph.initializer())
    initializers.push_back(constantFromTensor(tensor, tensor.name(), context));
  return initializers;
}

graph::Graph convert(const onnx::ModelProto& model, std::vector<graph::Value> initializers,
                     const ImportContext& context) {
  const auto& source = model.graph();
  graph::Graph result;
  std::unordered_map<std::string, graph::ValueId> valueByName;

  for (graph::Value& initializer : initializers) {
    const std::string name = initializer.name;
    valueByName[name] = result.addValue(std::move(initializer));
  }

  // resolveInputShapes left every graph input with a static shape.
  auto inputShape = [](const onnx::TypeProto& type) {
    Shape shape;
    for (const auto& dim : type.tensor_type().shape().dim())
      shape.push_back(dim.dim_value());
    return shape;
  };

  for (const auto& input : source.input()) {
    if (valueByName.count(input.name()))
      continue; // an initializer listed as an input (older exporters)
    graph::Value value;
    value.name = input.name();
    value.kind = graph::ValueKind::Input;
    value.dtype = requireType(input.type().tensor_type().elem_type(), context,
                              "graph input '" + input.name() + "'");
    value.shape = inputShape(input.type());
    const auto id = result.addValue(value);
    valueByName[input.name()] = id;
    result.inputs.push_back(id);
  }

  for (int index = 0; index < source.node_size(); ++index) {
    const auto& protoNode = source.node(index);
    const std::string label = nodeLabel(protoNode, index);
    if (protoNode.op_type() == "Constant") {
      if (protoNode.output_size() != 1)
        throw context.error("Constant node must have one output", label);
      valueByName[protoNode.output(0)] =
          result.addValue(constantFromNode(protoNode, protoNode.output(0), context, label));
      continue;
    }
    graph::Node node;
    node.name = protoNode.name();
    node.op = protoNode.op_type();
    node.pattern = graph::lookupOp(node.op)->pattern;
    for (const auto& attribute : protoNode.attribute())
      node.attributes[attribute.name()] = convertAttribute(attribute, context, label);
    for (const auto& inputName : protoNode.input()) {
      if (inputName.empty()) {
        node.inputs.push_back(graph::kNoValue);
        continue;
      }
      auto found = valueByName.find(inputName);
      assert(found != valueByName.end() && "checkDataFlow lets no undefined input through");
      node.inputs.push_back(found->second);
    }
    // Drop trailing unnamed optional outputs; keep positions of named ones.
    int outputCount = protoNode.output_size();
    while (outputCount > 0 && protoNode.output(outputCount - 1).empty())
      --outputCount;
    for (int i = 0; i < outputCount; ++i) {
      const std::string& outputName = protoNode.output(i);
      graph::Value value;
      value.name = outputName;
      // Types and shapes come from graph::inferShapes, but for ConstantOfShape's element type,
      // which only its `value` tensor carries.
      if (protoNode.op_type() == "ConstantOfShape")
        for (const auto& attribute : protoNode.attribute())
          if (attribute.name() == "value" && attribute.has_t())
            value.dtype =
                requireType(attribute.t().data_type(), context, "ConstantOfShape's value");
      const auto id = result.addValue(value);
      if (!outputName.empty()) {
        if (valueByName.count(outputName))
          throw context.error("value '" + outputName + "' is produced twice", label);
        valueByName[outputName] = id;
      }
      node.outputs.push_back(id);
    }
    result.addNode(std::move(node));
  }

  for (const auto& output : source.output()) {
    auto found = valueByName.find(output.name());
    if (found == valueByName.end())
      throw context.error("graph output '" + output.name() + "' is not produced by any node");
    result.outputs.push_back(found->second);
  }
  result.verify();
  return result;
}

std::string onnxShapeText(const onnx::TypeProto& type) {
  if (!type.tensor_type().has_shape())
    return "no shape";
  graph::Shape shape;
  for (const auto& dim : type.tensor_type().shape().dim()) {
    if (!dim.has_dim_value())
      return "a dynamic shape";
    shape.push_back(dim.dim_value());
  }
  return graph::shapeToString(shape);
}

// Runs ONNX's inference on `model` and compares the type and shape of every value it inferred
// with clustune's. A disagreement is a defect in one of the two, reported as an error. A value
// ONNX could not infer (or a model it fails on) is not compared: clustune's rules evaluate more
// shape arithmetic than ONNX 1.12's data propagation.
void crossCheckWithOnnx(onnx::ModelProto model, const graph::Graph& graph,
                        const ImportContext& context) {
  try {
    inferShapesGuarded(model, context.file);
  } catch (const Error& error) {
    spdlog::debug("{}: cross-check skipped, ONNX's inference failed: {}", context.file,
                  error.what());
    return;
  }
  std::unordered_map<std::string, const onnx::TypeProto*> onnxTypes;
  for (const auto& info : model.graph().value_info())
    onnxTypes[info.name()] = &info.type();
  for (const auto& info : model.graph().output())
    onnxTypes[info.name()] = &info.type();
  int compared = 0;
  for (const graph::Value& value : graph.values) {
    auto found = onnxTypes.find(value.name);
    if (value.kind != graph::ValueKind::Intermediate || found == onnxTypes.end())
      continue;
    const onnx::TypeProto& type = *found->second;
    const std::string theirs = onnxShapeText(type);
    if (theirs == "no shape" || theirs == "a dynamic shape")
      continue;
    const auto theirType = dataTypeFromOnnx(type.tensor_type().elem_type());
    if (theirs != graph::shapeToString(value.shape) || (theirType && *theirType != value.dtype))
      throw context.error(std::string(kInferenceDisagreement) + ": clustune's gives '" +
                          value.name + "' " + graph::dataTypeName(value.dtype) + " " +
                          graph::shapeToString(value.shape) + ", ONNX's gives " +
                          (theirType ? graph::dataTypeName(*theirType) : "another type") + " " +
                          theirs);
    ++compared;
  }
  spdlog::debug("{}: cross-checked {} values with ONNX's shape inference", context.file, compared);
}

} // namespace

int maxSupportedOpset() {
  return kNewestOpset;
}

std::string modelNameFromPath(const std::string& path) {
  if (path == "-")
    return "stdin";
  std::string stem = std::filesystem::path(path).filename().string();
  if (stem.size() > 5 && stem.ends_with(".onnx"))
    stem.resize(stem.size() - 5);
  return stem;
}

graph::Graph importModel(const std::string& path, const ImportOptions& options) {
  ImportContext context{.file = displayPath(path),
                        .modelDirectory = path == "-" ? std::filesystem::current_path()
                                                      : std::filesystem::path(path).parent_path()};
  onnx::ModelProto model = parseModel(readFileBytes(path), context);
  const int opset = defaultDomainOpset(model, context);
  if (opset > kNewestOpset)
    throw context.error("opset " + std::to_string(opset) +
                        " is newer than clustune knows (opsets up to " +
                        std::to_string(kNewestOpset) +
                        "); export the model with opset <= " + std::to_string(kNewestOpset));
  checkOperators(model.graph(), opset, context);
  checkDataFlow(model.graph(), context);
  checkExternalData(model.graph(), context);
  bindConstantInputs(*model.mutable_graph(), options, context);
  resolveInputShapes(*model.mutable_graph(), options, context);
  std::vector<graph::Value> initializers = decodeConstants(model.graph(), context);
  graph::Graph result = convert(model, std::move(initializers), context);
  try {
    graph::inferShapes(result, opset);
  } catch (const Error& error) {
    throw error.withContext({.file = context.file});
  }
  if (options.crossCheckOnnxInference && opset <= kNewestSchemaOpset)
    crossCheckWithOnnx(std::move(model), result, context);
  result.name = modelNameFromPath(path);
  spdlog::debug("{}: imported {} nodes, {} values (opset {})", context.file, result.nodes.size(),
                result.values.size(), opset);
  return result;
}

std::pair<std::string, graph::Shape> parseInputShape(const std::string& text) {
  const auto equals = text.find('=');
  if (equals == std::string::npos || equals == 0)
    throw Error("--input-shape '" + text + "': expected NAME=D1xD2x... (e.g. input=1x3x224x224)");
  std::string name = text.substr(0, equals);
  const std::string dims = text.substr(equals + 1);
  graph::Shape shape;
  std::size_t start = 0;
  while (start < dims.size()) {
    std::size_t end = dims.find('x', start);
    if (end == std::string::npos)
      end = dims.size();
    const std::string part = dims.substr(start, end - start);
    std::int64_t extent = 0;
    bool valid = !part.empty() && part.size() <= 12 &&
                 part.find_first_not_of("0123456789") == std::string::npos;
    if (valid)
      extent = std::stoll(part);
    if (!valid || extent <= 0)
      throw Error("--input-shape '" + text + "': dimension '" + part +
                  "' is not a positive integer (expected NAME=D1xD2x...)");
    shape.push_back(extent);
    start = end + 1;
    if (end + 1 == dims.size())
      throw Error("--input-shape '" + text + "': trailing 'x'");
  }
  return {std::move(name), std::move(shape)};
}

ImportOptions importOptionsFromFlags(std::optional<std::int64_t> batch,
                                     const std::vector<std::string>& inputShapes) {
  ImportOptions options;
  options.batch = batch;
  for (const auto& text : inputShapes) {
    auto [name, shape] = parseInputShape(text);
    options.inputShapes[name] = std::move(shape);
  }
  return options;
}

} // namespace clustune::onnx_import
