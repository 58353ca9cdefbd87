// See OnnxFile.h. Initializers are written as raw little-endian data, which ONNX Runtime and
// numpy read without conversion and which keeps every float bit-exact.
#include "nn/OnnxFile.h"

#include "support/Error.h"
#include "support/Files.h"

#include <bit>
#include <cstring>
#include <onnx/onnx_pb.h>

namespace clustune::nn {

namespace {

static_assert(std::endian::native == std::endian::little,
              "ONNX raw_data is little-endian; this file copies it as host memory");

constexpr const char* kProducerName = "clustune";
constexpr std::int64_t kIrVersion = 7;
constexpr std::int64_t kOpsetVersion = 13;

void checkUniqueName(std::set<std::string>& names, const std::string& name,
                     const std::string& path) {
  if (name.empty())
    throw Error("an initializer has no name", {.file = path});
  if (!names.insert(name).second)
    throw Error("two initializers are named '" + name + "'", {.file = path});
}

void fillValueInfo(const OnnxValueInfo& value, onnx::ValueInfoProto& proto,
                   const std::string& path) {
  if (!value.dimNames.empty() && value.dimNames.size() != value.shape.size())
    throw Error("'" + value.name + "' has " + std::to_string(value.dimNames.size()) +
                    " dimension names for " + std::to_string(value.shape.size()) + " dimensions",
                {.file = path});
  proto.set_name(value.name);
  auto* tensorType = proto.mutable_type()->mutable_tensor_type();
  tensorType->set_elem_type(onnx::TensorProto_DataType_FLOAT);
  auto* shape = tensorType->mutable_shape();
  for (std::size_t i = 0; i < value.shape.size(); ++i) {
    auto* dim = shape->add_dim();
    if (value.shape[i] >= 0)
      dim->set_dim_value(value.shape[i]);
    else if (value.shape[i] != -1)
      throw Error("'" + value.name + "' has dimension " + std::to_string(value.shape[i]),
                  {.file = path});
    else if (!value.dimNames.empty() && !value.dimNames[i].empty())
      dim->set_dim_param(value.dimNames[i]);
    // else: an unknown dimension, with neither value nor name
  }
}

OnnxValueInfo readValueInfo(const onnx::ValueInfoProto& proto, const std::string& path) {
  OnnxValueInfo value;
  value.name = proto.name();
  if (!proto.type().has_tensor_type() ||
      proto.type().tensor_type().elem_type() != onnx::TensorProto_DataType_FLOAT)
    throw Error("graph input or output '" + value.name + "' is not a float tensor", {.file = path});
  bool symbolic = false;
  std::vector<std::string> names;
  for (const auto& dim : proto.type().tensor_type().shape().dim()) {
    if (dim.has_dim_value()) {
      value.shape.push_back(dim.dim_value());
      names.emplace_back();
    } else {
      value.shape.push_back(-1);
      names.push_back(dim.has_dim_param() ? dim.dim_param() : std::string());
      symbolic = true;
    }
  }
  if (symbolic)
    value.dimNames = std::move(names);
  return value;
}

void fillNode(const OnnxNode& node, onnx::NodeProto& proto) {
  proto.set_op_type(node.opType);
  for (const std::string& input : node.inputs)
    proto.add_input(input);
  for (const std::string& output : node.outputs)
    proto.add_output(output);
  for (const auto& [name, value] : node.intAttributes) {
    auto* attribute = proto.add_attribute();
    attribute->set_name(name);
    attribute->set_type(onnx::AttributeProto_AttributeType_INT);
    attribute->set_i(value);
  }
  for (const auto& [name, values] : node.intListAttributes) {
    auto* attribute = proto.add_attribute();
    attribute->set_name(name);
    attribute->set_type(onnx::AttributeProto_AttributeType_INTS);
    for (std::int64_t value : values)
      attribute->add_ints(value);
  }
  for (const auto& [name, value] : node.floatAttributes) {
    auto* attribute = proto.add_attribute();
    attribute->set_name(name);
    attribute->set_type(onnx::AttributeProto_AttributeType_FLOAT);
    attribute->set_f(value);
  }
}

OnnxNode readNode(const onnx::NodeProto& proto, std::size_t index, const std::string& path) {
  const ErrorContext context{.file = path, .node = proto.op_type() + " #" + std::to_string(index)};
  if (!proto.domain().empty() && proto.domain() != "ai.onnx")
    throw Error("operator domain '" + proto.domain() + "' is not supported", context);
  OnnxNode node;
  node.opType = proto.op_type();
  node.inputs.assign(proto.input().begin(), proto.input().end());
  node.outputs.assign(proto.output().begin(), proto.output().end());
  for (const auto& attribute : proto.attribute()) {
    switch (attribute.type()) {
    case onnx::AttributeProto_AttributeType_INT:
      node.intAttributes[attribute.name()] = attribute.i();
      break;
    case onnx::AttributeProto_AttributeType_INTS:
      node.intListAttributes[attribute.name()].assign(attribute.ints().begin(),
                                                      attribute.ints().end());
      break;
    case onnx::AttributeProto_AttributeType_FLOAT:
      node.floatAttributes[attribute.name()] = attribute.f();
      break;
    default:
      throw Error("attribute '" + attribute.name() + "' is not an int, ints or float", context);
    }
  }
  return node;
}

void fillFloatTensor(const std::string& name, const Matrix& matrix, bool oneDimensional,
                     onnx::TensorProto& proto, const std::string& path) {
  proto.set_name(name);
  proto.set_data_type(onnx::TensorProto_DataType_FLOAT);
  if (oneDimensional) {
    if (matrix.rows() != 1)
      throw Error("initializer '" + name + "' is listed as 1-D but has " +
                      std::to_string(matrix.rows()) + " rows",
                  {.file = path});
  } else {
    proto.add_dims(matrix.rows());
  }
  proto.add_dims(matrix.cols());
  // Row-major, so the storage is already in ONNX's order.
  proto.set_raw_data(std::string(reinterpret_cast<const char*>(matrix.data()),
                                 static_cast<std::size_t>(matrix.size()) * sizeof(float)));
}

std::int64_t elementCount(const onnx::TensorProto& proto, const ErrorContext& context) {
  std::int64_t elements = 1;
  for (std::int64_t dim : proto.dims()) {
    if (dim < 0 || (dim > 0 && elements > (std::int64_t{1} << 40) / dim))
      throw Error("initializer '" + proto.name() + "' has an invalid shape", context);
    elements *= dim;
  }
  return elements;
}

// Copies the elements of `proto`, stored either as raw_data or in the typed field `typed`.
template <typename T, typename Repeated>
void readElements(const onnx::TensorProto& proto, const Repeated& typed, T* out,
                  std::int64_t elements, const ErrorContext& context) {
  const auto count = static_cast<std::size_t>(elements);
  if (proto.has_raw_data()) {
    if (proto.raw_data().size() != count * sizeof(T))
      throw Error("initializer '" + proto.name() + "' has " +
                      std::to_string(proto.raw_data().size()) + " bytes of data for " +
                      std::to_string(elements) + " elements",
                  context);
    std::memcpy(out, proto.raw_data().data(), proto.raw_data().size());
    return;
  }
  if (static_cast<std::size_t>(typed.size()) != count)
    throw Error("initializer '" + proto.name() + "' has " + std::to_string(typed.size()) +
                    " values for " + std::to_string(elements) + " elements",
                context);
  for (std::size_t i = 0; i < count; ++i)
    out[i] = static_cast<T>(typed.Get(static_cast<int>(i)));
}

} // namespace

void saveOnnxGraph(const std::string& path, const OnnxGraph& graph) {
  onnx::ModelProto model;
  model.set_ir_version(kIrVersion);
  model.set_producer_name(kProducerName);
  model.set_producer_version(kOnnxProducerVersion);
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(kOpsetVersion);
  for (const auto& [key, value] : graph.metadata) {
    auto* entry = model.add_metadata_props();
    entry->set_key(key);
    entry->set_value(value);
  }

  auto* proto = model.mutable_graph();
  proto->set_name(graph.name);
  for (const OnnxValueInfo& input : graph.inputs)
    fillValueInfo(input, *proto->add_input(), path);
  for (const OnnxValueInfo& output : graph.outputs)
    fillValueInfo(output, *proto->add_output(), path);
  for (const OnnxNode& node : graph.nodes)
    fillNode(node, *proto->add_node());

  std::set<std::string> names;
  for (const auto& [name, matrix] : graph.initializers) {
    checkUniqueName(names, name, path);
    fillFloatTensor(name, matrix, graph.oneDimensional.count(name) > 0, *proto->add_initializer(),
                    path);
  }
  for (const auto& [name, values] : graph.int64Initializers) {
    checkUniqueName(names, name, path);
    auto* tensor = proto->add_initializer();
    tensor->set_name(name);
    tensor->set_data_type(onnx::TensorProto_DataType_INT64);
    tensor->add_dims(static_cast<std::int64_t>(values.size()));
    tensor->set_raw_data(std::string(reinterpret_cast<const char*>(values.data()),
                                     values.size() * sizeof(std::int64_t)));
  }
  for (const std::string& name : graph.oneDimensional)
    if (!names.count(name))
      throw Error("'" + name + "' is listed as 1-D but is not a float initializer", {.file = path});

  std::string bytes;
  if (!model.SerializeToString(&bytes))
    throw Error("cannot serialise the model (larger than 2 GiB?)", {.file = path});
  OutputFile output(path);
  output.stream().write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  output.commit();
}

OnnxGraph loadOnnxGraph(const std::string& path, const std::string& expectedKind) {
  const ErrorContext context{.file = displayPath(path)};
  onnx::ModelProto model;
  // An empty or arbitrary file can parse as a ModelProto of unknown fields; a model has a graph.
  if (!model.ParseFromString(readFileBytes(path)) || !model.has_graph())
    throw Error("not an ONNX model", context);
  if (model.producer_name() != kProducerName)
    throw Error("model was not written by clustune (producer '" + model.producer_name() + "')",
                context);

  OnnxGraph graph;
  graph.sourceFile = context.file;
  for (const auto& entry : model.metadata_props())
    graph.metadata[entry.key()] = entry.value();
  const auto kind = graph.metadata.find(kOnnxKindKey);
  if (kind == graph.metadata.end())
    throw Error("expected a '" + expectedKind + "' model, found no " + kOnnxKindKey +
                    " in the metadata",
                context);
  if (kind->second != expectedKind)
    throw Error("expected a '" + expectedKind + "' model, found " + kOnnxKindKey + " '" +
                    kind->second + "'",
                context);

  const onnx::GraphProto& proto = model.graph();
  graph.name = proto.name();
  for (const auto& input : proto.input())
    graph.inputs.push_back(readValueInfo(input, context.file));
  for (const auto& output : proto.output())
    graph.outputs.push_back(readValueInfo(output, context.file));
  for (int i = 0; i < proto.node_size(); ++i)
    graph.nodes.push_back(readNode(proto.node(i), static_cast<std::size_t>(i), context.file));

  if (proto.sparse_initializer_size() > 0)
    throw Error("sparse initializers are not supported", context);
  for (const auto& tensor : proto.initializer()) {
    if (tensor.has_data_location() &&
        tensor.data_location() == onnx::TensorProto_DataLocation_EXTERNAL)
      throw Error("initializer '" + tensor.name() + "' has external data", context);
    const std::int64_t elements = elementCount(tensor, context);
    if (tensor.data_type() == onnx::TensorProto_DataType_INT64) {
      if (tensor.dims_size() != 1)
        throw Error("int64 initializer '" + tensor.name() + "' has " +
                        std::to_string(tensor.dims_size()) + " dimensions, not 1",
                    context);
      std::vector<std::int64_t> values(static_cast<std::size_t>(elements));
      readElements(tensor, tensor.int64_data(), values.data(), elements, context);
      graph.int64Initializers.emplace_back(tensor.name(), std::move(values));
      continue;
    }
    if (tensor.data_type() != onnx::TensorProto_DataType_FLOAT)
      throw Error("initializer '" + tensor.name() + "' is not float (data type " +
                      std::to_string(tensor.data_type()) + ")",
                  context);
    if (tensor.dims_size() > 2)
      throw Error("initializer '" + tensor.name() + "' has " + std::to_string(tensor.dims_size()) +
                      " dimensions; at most 2 are supported",
                  context);
    // A scalar reads as a 1x1 matrix, a 1-D tensor as one row.
    const Eigen::Index rows = tensor.dims_size() == 2 ? tensor.dims(0) : 1;
    const Eigen::Index cols = tensor.dims_size() == 0 ? 1 : tensor.dims(tensor.dims_size() - 1);
    Matrix matrix(rows, cols);
    readElements(tensor, tensor.float_data(), matrix.data(), elements, context);
    if (tensor.dims_size() == 1)
      graph.oneDimensional.insert(tensor.name());
    graph.initializers.emplace_back(tensor.name(), std::move(matrix));
  }
  return graph;
}

const Matrix& initializer(const OnnxGraph& graph, const std::string& name) {
  for (const auto& [candidate, matrix] : graph.initializers)
    if (candidate == name)
      return matrix;
  throw Error("the model has no float initializer '" + name + "'", {.file = graph.sourceFile});
}

Matrix shapedInitializer(const OnnxGraph& graph, const std::string& name, std::int64_t rows,
                         std::int64_t cols) {
  const Matrix& stored = initializer(graph, name);
  if (stored.rows() != rows || stored.cols() != cols)
    throw Error("tensor '" + name + "' is " + std::to_string(stored.rows()) + "×" +
                    std::to_string(stored.cols()) + ", expected " + std::to_string(rows) + "×" +
                    std::to_string(cols),
                {.file = graph.sourceFile});
  return stored;
}

const std::vector<std::int64_t>& int64Initializer(const OnnxGraph& graph, const std::string& name) {
  for (const auto& [candidate, values] : graph.int64Initializers)
    if (candidate == name)
      return values;
  throw Error("the model has no int64 initializer '" + name + "'", {.file = graph.sourceFile});
}

int metadataInteger(const OnnxGraph& graph, const std::string& key) {
  const ErrorContext context{graph.sourceFile};
  const auto found = graph.metadata.find(key);
  if (found == graph.metadata.end())
    throw Error("the model lacks the metadata entry '" + key + "'", context);
  try {
    std::size_t used = 0;
    const int value = std::stoi(found->second, &used);
    if (used == found->second.size())
      return value;
  } catch (const std::exception&) {
  }
  throw Error("the model's metadata '" + key + "' is not an integer: '" + found->second + "'",
              context);
}

} // namespace clustune::nn
