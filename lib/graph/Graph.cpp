// See Graph.h.
#include "graph/Graph.h"

#include <algorithm>
#include <cassert>
#include <numeric>
#include <utility>

namespace clustune::graph {

const char* dataTypeName(DataType type) {
  switch (type) {
  case DataType::Float32:
    return "float32";
  case DataType::Float16:
    return "float16";
  case DataType::Float64:
    return "float64";
  case DataType::Int8:
    return "int8";
  case DataType::UInt8:
    return "uint8";
  case DataType::Int32:
    return "int32";
  case DataType::Int64:
    return "int64";
  case DataType::Bool:
    return "bool";
  }
  return "float32";
}

std::optional<DataType> parseDataType(const std::string& name) {
  for (DataType type : {DataType::Float32, DataType::Float16, DataType::Float64, DataType::Int8,
                        DataType::UInt8, DataType::Int32, DataType::Int64, DataType::Bool})
    if (name == dataTypeName(type))
      return type;
  return std::nullopt;
}

std::int64_t dataTypeBytes(DataType type) {
  switch (type) {
  case DataType::Float64:
  case DataType::Int64:
    return 8;
  case DataType::Float32:
  case DataType::Int32:
    return 4;
  case DataType::Float16:
    return 2;
  case DataType::Int8:
  case DataType::UInt8:
  case DataType::Bool:
    return 1;
  }
  return 4;
}

bool isFloatingPoint(DataType type) {
  return type == DataType::Float32 || type == DataType::Float16 || type == DataType::Float64;
}

std::optional<DataType> dataTypeFromOnnxCode(std::int64_t code) {
  // TensorProto.DataType: FLOAT 1, UINT8 2, INT8 3, INT32 6, INT64 7, BOOL 9, FLOAT16 10,
  // DOUBLE 11; fixed by the ONNX standard, so that lib/graph need not include its protobuf.
  switch (code) {
  case 1:
    return DataType::Float32;
  case 2:
    return DataType::UInt8;
  case 3:
    return DataType::Int8;
  case 6:
    return DataType::Int32;
  case 7:
    return DataType::Int64;
  case 9:
    return DataType::Bool;
  case 10:
    return DataType::Float16;
  case 11:
    return DataType::Float64;
  default:
    return std::nullopt;
  }
}

std::int64_t elementCount(const Shape& shape) {
  return std::accumulate(shape.begin(), shape.end(), std::int64_t{1}, std::multiplies<>());
}

std::optional<std::int64_t> checkedElementCount(const Shape& shape) {
  std::int64_t count = 1;
  for (const std::int64_t extent : shape)
    if (extent < 0 || __builtin_mul_overflow(count, extent, &count))
      return std::nullopt;
  return count;
}

std::string shapeToString(const Shape& shape) {
  if (shape.empty())
    return "scalar";
  std::string text;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i)
      text += 'x';
    text += std::to_string(shape[i]);
  }
  return text;
}

const AttributeValue* findAttribute(const Attributes& attributes, const std::string& key) {
  auto found = attributes.find(key);
  return found == attributes.end() ? nullptr : &found->second;
}

std::int64_t intAttribute(const Attributes& attributes, const std::string& key,
                          std::int64_t fallback) {
  const auto* value = findAttribute(attributes, key);
  if (const auto* integer = value ? std::get_if<std::int64_t>(value) : nullptr)
    return *integer;
  return fallback;
}

std::vector<std::int64_t> intsAttribute(const Attributes& attributes, const std::string& key,
                                        std::vector<std::int64_t> fallback) {
  const auto* value = findAttribute(attributes, key);
  if (const auto* integers = value ? std::get_if<std::vector<std::int64_t>>(value) : nullptr)
    return *integers;
  return fallback;
}

const AttributeValue* Node::attribute(const std::string& key) const {
  return findAttribute(attributes, key);
}

std::int64_t Node::intAttribute(const std::string& key, std::int64_t fallback) const {
  return graph::intAttribute(attributes, key, fallback);
}

double Node::floatAttribute(const std::string& key, double fallback) const {
  const auto* value = attribute(key);
  if (!value)
    return fallback;
  if (const auto* real = std::get_if<double>(value))
    return *real;
  if (const auto* integer = std::get_if<std::int64_t>(value))
    return static_cast<double>(*integer);
  return fallback;
}

std::vector<std::int64_t> Node::intsAttribute(const std::string& key,
                                              std::vector<std::int64_t> fallback) const {
  return graph::intsAttribute(attributes, key, std::move(fallback));
}

std::string Node::stringAttribute(const std::string& key, std::string fallback) const {
  const auto* value = attribute(key);
  if (const auto* text = value ? std::get_if<std::string>(value) : nullptr)
    return *text;
  return fallback;
}

ValueId Graph::addValue(Value value) {
  values.push_back(std::move(value));
  return static_cast<ValueId>(values.size() - 1);
}

NodeId Graph::addNode(Node node) {
  const auto id = static_cast<NodeId>(nodes.size());
  for (ValueId output : node.outputs) {
    values[output].kind = ValueKind::Intermediate;
    values[output].producer = id;
  }
  nodes.push_back(std::move(node));
  return id;
}

std::vector<std::vector<NodeId>> Graph::consumers() const {
  std::vector<std::vector<NodeId>> readers(values.size());
  for (NodeId id = 0; id < static_cast<NodeId>(nodes.size()); ++id) {
    if (nodes[id].erased)
      continue;
    for (ValueId input : nodes[id].inputs)
      if (input != kNoValue && (readers[input].empty() || readers[input].back() != id))
        readers[input].push_back(id);
  }
  return readers;
}

bool Graph::isGraphOutput(ValueId value) const {
  return std::find(outputs.begin(), outputs.end(), value) != outputs.end();
}

std::string Graph::nodeLabel(NodeId node) const {
  const Node& n = nodes[node];
  if (!n.name.empty())
    return n.name;
  return n.op + " #" + std::to_string(node);
}

void Graph::replaceAllUses(ValueId from, ValueId to) {
  for (Node& node : nodes)
    for (ValueId& input : node.inputs)
      if (input == from)
        input = to;
  for (ValueId& output : outputs)
    if (output == from)
      output = to;
}

void Graph::compact() {
  // Mark live nodes backwards from the graph outputs.
  std::vector<bool> liveValue(values.size(), false);
  for (ValueId output : outputs)
    liveValue[output] = true;
  std::vector<bool> liveNode(nodes.size(), false);
  for (NodeId id = static_cast<NodeId>(nodes.size()) - 1; id >= 0; --id) {
    const Node& node = nodes[id];
    if (node.erased)
      continue;
    bool used = false;
    for (ValueId output : node.outputs)
      used = used || liveValue[output];
    if (!used)
      continue;
    liveNode[id] = true;
    for (ValueId input : node.inputs)
      if (input != kNoValue)
        liveValue[input] = true;
  }
  for (ValueId input : inputs)
    liveValue[input] = true; // graph inputs stay, even if unread
  for (NodeId id = 0; id < static_cast<NodeId>(nodes.size()); ++id)
    if (liveNode[id])
      for (ValueId output : nodes[id].outputs)
        liveValue[output] = true; // unread secondary outputs of live nodes stay

  std::vector<ValueId> newValueId(values.size(), kNoValue);
  std::vector<Value> keptValues;
  for (ValueId id = 0; id < static_cast<ValueId>(values.size()); ++id) {
    if (!liveValue[id])
      continue;
    newValueId[id] = static_cast<ValueId>(keptValues.size());
    keptValues.push_back(std::move(values[id]));
  }
  std::vector<Node> keptNodes;
  for (NodeId id = 0; id < static_cast<NodeId>(nodes.size()); ++id) {
    if (!liveNode[id])
      continue;
    Node node = std::move(nodes[id]);
    for (ValueId& input : node.inputs)
      if (input != kNoValue)
        input = newValueId[input];
    for (ValueId& output : node.outputs)
      output = newValueId[output];
    const auto newId = static_cast<NodeId>(keptNodes.size());
    for (ValueId output : node.outputs)
      keptValues[output].producer = newId;
    keptNodes.push_back(std::move(node));
  }
  for (ValueId& input : inputs)
    input = newValueId[input];
  for (ValueId& output : outputs)
    output = newValueId[output];
  values = std::move(keptValues);
  nodes = std::move(keptNodes);
  verify();
}

void Graph::verify() const {
#ifndef NDEBUG
  std::vector<bool> available(values.size(), false);
  for (ValueId id = 0; id < static_cast<ValueId>(values.size()); ++id)
    available[id] = values[id].kind != ValueKind::Intermediate;
  for (NodeId id = 0; id < static_cast<NodeId>(nodes.size()); ++id) {
    const Node& node = nodes[id];
    if (node.erased)
      continue;
    for (ValueId input : node.inputs)
      assert(input == kNoValue ||
             (input >= 0 && input < static_cast<ValueId>(values.size()) && available[input]));
    for (ValueId output : node.outputs) {
      assert(values[output].producer == id);
      available[output] = true;
    }
  }
  for (ValueId output : outputs)
    assert(available[output]);
#endif
}

} // namespace clustune::graph
