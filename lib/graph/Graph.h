// The operator graph IR (DESIGN §4.1): what the ONNX importer produces, the simplifier rewrites
// and the partitioner cuts into tasks. Plain data with static shapes: every Value has a known
// shape and dtype, and `nodes` is always in topological order. Constants keep their data only
// when it was in the model (weights are usually stripped, see models/README.md); shapes are all
// that tuning needs.
#pragma once

#include "graph/OpRegistry.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace clustune::graph {

enum class DataType { Float32, Float16, Float64, Int8, UInt8, Int32, Int64, Bool };

const char* dataTypeName(DataType type); // "float32", "int64", ...
std::optional<DataType> parseDataType(const std::string& name);
std::int64_t dataTypeBytes(DataType type);
bool isFloatingPoint(DataType type);
// The type of an ONNX TensorProto.DataType code (Cast's `to`, a tensor's data_type); nullopt for
// the types clustune does not compute in.
std::optional<DataType> dataTypeFromOnnxCode(std::int64_t code);

using Shape = std::vector<std::int64_t>;
std::int64_t elementCount(const Shape& shape);
// The element count of a shape from outside (a model file), or nullopt when a dimension is
// negative or the count does not fit in 64 bits.
std::optional<std::int64_t> checkedElementCount(const Shape& shape);
std::string shapeToString(const Shape& shape); // "1x3x224x224"; "scalar" for rank 0

using ValueId = int;
using NodeId = int;
constexpr ValueId kNoValue = -1; // an omitted optional input

enum class ValueKind {
  Input,       // a graph input: an activation fed at run time
  Constant,    // an initializer or folded constant (a weight, a bias, a shape)
  Intermediate // produced by a node
};

struct Value {
  std::string name = {};
  DataType dtype = DataType::Float32;
  Shape shape = {};
  ValueKind kind = ValueKind::Intermediate;
  NodeId producer = -1; // for Intermediate values
  // Constant payload, present when the model carried the data (or folding computed it).
  // Floating-point constants use floatData, integer and bool constants use intData.
  bool hasData = false;
  // The data is a seeded placeholder for a weight the model file did not carry
  // (generateMissingWeights). Constant folding leaves such values alone, so that a model's tasks
  // are the same with placeholders (clustune-run, clustune-bench) as without (clustune-partition,
  // clustune-tune).
  bool generated = false;
  std::vector<double> floatData = {};
  std::vector<std::int64_t> intData = {};

  std::int64_t elements() const { return elementCount(shape); }
  std::int64_t bytes() const { return elements() * dataTypeBytes(dtype); }
};

using AttributeValue =
    std::variant<std::int64_t, double, std::string, std::vector<std::int64_t>, std::vector<double>>;
// Ordered by name, so that iteration (and so workload keys) are canonical.
using Attributes = std::map<std::string, AttributeValue>;

// Typed reads of an attribute map (a Node's or a TaskNode's): the fallback when the key is
// missing or holds another type.
const AttributeValue* findAttribute(const Attributes& attributes, const std::string& key);
std::int64_t intAttribute(const Attributes& attributes, const std::string& key,
                          std::int64_t fallback);
std::vector<std::int64_t> intsAttribute(const Attributes& attributes, const std::string& key,
                                        std::vector<std::int64_t> fallback = {});

struct Node {
  std::string name = {}; // from the model; may be empty
  std::string op = {};   // ONNX op type, e.g. "Conv"
  Attributes attributes = {};
  std::vector<ValueId> inputs = {}; // kNoValue for an omitted optional input
  std::vector<ValueId> outputs = {};
  PatternKind pattern = PatternKind::Opaque;
  bool erased = false; // set by eraseNode; removed for good by compact()

  const AttributeValue* attribute(const std::string& key) const;
  std::int64_t intAttribute(const std::string& key, std::int64_t fallback) const;
  double floatAttribute(const std::string& key, double fallback) const;
  std::vector<std::int64_t> intsAttribute(const std::string& key,
                                          std::vector<std::int64_t> fallback = {}) const;
  std::string stringAttribute(const std::string& key, std::string fallback = {}) const;
};

class Graph {
public:
  std::string name; // the model name (file stem)
  std::vector<Node> nodes;
  std::vector<Value> values;
  std::vector<ValueId> inputs;  // graph inputs, in model order
  std::vector<ValueId> outputs; // graph outputs, in model order

  ValueId addValue(Value value);
  // Appends a node and sets the producer of its outputs. The caller keeps topological order.
  NodeId addNode(Node node);

  // For each value, the live nodes that read it (in node order).
  std::vector<std::vector<NodeId>> consumers() const;
  bool isGraphOutput(ValueId value) const;

  // "name" when the node has one, else "<op> #<index>"; used in error messages.
  std::string nodeLabel(NodeId node) const;

  // Redirects every read of `from` (node inputs and graph outputs) to `to`.
  void replaceAllUses(ValueId from, ValueId to);
  void eraseNode(NodeId node) { nodes[node].erased = true; }

  // Drops erased nodes, nodes whose outputs nobody reads (dead code), and values nothing refers
  // to; renumbers ids. Keeps topological order.
  void compact();

  // Checks the invariants (topological order, ids in range, producers consistent) with assert;
  // a no-op in release builds.
  void verify() const;
};

} // namespace clustune::graph
