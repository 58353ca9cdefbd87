// See Task.h: the tasks.jsonl form of a Task (docs/formats.md), written with the documented field
// order and read back with every field validated. Kept apart from Task.cpp so that the key
// (which must never change) and the file format (which may grow fields) evolve separately.
#include "graph/Task.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace clustune::graph {

namespace {

const char* inputKindName(TaskInput::Kind kind) {
  return kind == TaskInput::Kind::Weight ? "weight" : "activation";
}

// ---- JSON writer ------------------------------------------------------------------------------

using OrderedJson = nlohmann::ordered_json;
using Json = nlohmann::json;

// JSON has no infinities or NaN; they travel as these strings and are read back as floats.
OrderedJson floatToJson(double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  return value;
}

OrderedJson attributeToJson(const AttributeValue& value) {
  if (const auto* integer = std::get_if<std::int64_t>(&value))
    return *integer;
  if (const auto* real = std::get_if<double>(&value))
    return floatToJson(*real);
  if (const auto* text = std::get_if<std::string>(&value))
    return *text;
  if (const auto* integers = std::get_if<std::vector<std::int64_t>>(&value))
    return *integers;
  OrderedJson list = OrderedJson::array();
  for (double item : std::get<std::vector<double>>(value))
    list.push_back(floatToJson(item));
  return list;
}

OrderedJson refToJson(const TaskValueRef& ref) {
  switch (ref.kind) {
  case TaskValueRef::Kind::Input:
    return {{"input", ref.index}};
  case TaskValueRef::Kind::Node:
    return {{"node", ref.index}, {"output", ref.output}};
  case TaskValueRef::Kind::Omitted:
    break;
  }
  return nullptr;
}

OrderedJson inputToJson(const TaskInput& input) {
  OrderedJson entry;
  entry["shape"] = input.shape;
  entry["dtype"] = dataTypeName(input.dtype);
  entry["kind"] = inputKindName(input.kind);
  if (input.hasData) {
    OrderedJson data = OrderedJson::array();
    for (double item : input.floatData)
      data.push_back(floatToJson(item));
    for (std::int64_t item : input.intData)
      data.push_back(item);
    entry["value"] = std::move(data);
  }
  return entry;
}

OrderedJson nodeToJson(const TaskNode& node) {
  OrderedJson entry;
  entry["op"] = node.op;
  entry["pattern"] = patternKindName(node.pattern);
  OrderedJson attributes = OrderedJson::object();
  for (const auto& [name, value] : node.attributes)
    attributes[name] = attributeToJson(value);
  entry["attrs"] = std::move(attributes);
  OrderedJson inputs = OrderedJson::array();
  for (const TaskValueRef& ref : node.inputs)
    inputs.push_back(refToJson(ref));
  entry["inputs"] = std::move(inputs);
  OrderedJson outputs = OrderedJson::array();
  for (std::size_t i = 0; i < node.outputShapes.size(); ++i)
    outputs.push_back(
        {{"shape", node.outputShapes[i]}, {"dtype", dataTypeName(node.outputTypes[i])}});
  entry["outputs"] = std::move(outputs);
  return entry;
}

} // namespace

nlohmann::ordered_json taskToJson(const Task& task) {
  OrderedJson entry;
  entry["v"] = 1;
  entry["key"] = task.key;
  entry["anchor"] = task.anchor;
  entry["pattern"] = patternKindName(task.pattern);
  entry["weight"] = task.totalWeight();
  OrderedJson weights = OrderedJson::object();
  for (const auto& [model, count] : task.weights)
    weights[model] = count;
  entry["weights"] = std::move(weights);
  entry["flops"] = task.flops;
  entry["bytes_read"] = task.bytesRead;
  entry["bytes_written"] = task.bytesWritten;
  OrderedJson inputs = OrderedJson::array();
  for (const TaskInput& input : task.inputs)
    inputs.push_back(inputToJson(input));
  entry["inputs"] = std::move(inputs);
  OrderedJson nodes = OrderedJson::array();
  for (const TaskNode& node : task.nodes)
    nodes.push_back(nodeToJson(node));
  entry["nodes"] = std::move(nodes);
  OrderedJson outputs = OrderedJson::array();
  for (const TaskValueRef& ref : task.outputs)
    outputs.push_back(refToJson(ref));
  entry["outputs"] = std::move(outputs);
  return entry;
}

// ---- Validating reader ------------------------------------------------------------------------

namespace {

constexpr auto kAnyInteger = std::numeric_limits<std::int64_t>::min();

// A JSON value with its path from the entry ("nodes[2].inputs[0].node"), so that every error
// names exactly the field a user has to fix.
struct Field {
  const Json& value;
  std::string path;
};

class FieldReader {
public:
  explicit FieldReader(ErrorContext context) : context_(std::move(context)) {}
  void setTask(const std::string& key) { context_.task = key; }

  [[noreturn]] void fail(const Field& field, const std::string& problem) const {
    throw Error("field '" + field.path + "' " + problem, context_);
  }
  void expect(const Field& field, bool ok, const char* expected) const {
    if (!ok)
      fail(field, std::string("has the wrong type (") + field.value.type_name() + ", expected " +
                      expected + ")");
  }

  Field member(const Field& object, const char* name) const {
    expect(object, object.value.is_object(), "object");
    const std::string path = object.path.empty() ? name : object.path + "." + name;
    auto found = object.value.find(name);
    if (found == object.value.end())
      throw Error("missing field '" + path + "'", context_);
    return {*found, path};
  }
  // Elements of an array field, each with its own path.
  std::vector<Field> elements(const Field& array) const {
    expect(array, array.value.is_array(), "array");
    std::vector<Field> items;
    for (std::size_t i = 0; i < array.value.size(); ++i)
      items.push_back({array.value[i], array.path + "[" + std::to_string(i) + "]"});
    return items;
  }

  std::int64_t integer(const Field& field, std::int64_t minimum) const {
    expect(field, field.value.is_number_integer(), "integer");
    if (field.value.is_number_unsigned() &&
        field.value.get<std::uint64_t>() > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
      fail(field, "is out of range");
    const auto result = field.value.get<std::int64_t>();
    if (result < minimum)
      fail(field,
           "must be at least " + std::to_string(minimum) + " (is " + std::to_string(result) + ")");
    return result;
  }
  // A number, or one of the strings that floatToJson writes for infinities and NaN.
  double real(const Field& field) const {
    if (field.value.is_number())
      return field.value.get<double>();
    if (field.value == "inf" || field.value == "-inf")
      return field.value == "inf" ? std::numeric_limits<double>::infinity()
                                  : -std::numeric_limits<double>::infinity();
    if (field.value == "nan")
      return std::numeric_limits<double>::quiet_NaN();
    expect(field, false, "number");
    return 0;
  }
  const std::string& string(const Field& field) const {
    expect(field, field.value.is_string(), "string");
    return field.value.get_ref<const std::string&>();
  }

  Shape shape(const Field& field) const {
    Shape result;
    for (const Field& extent : elements(field))
      result.push_back(integer(extent, 0));
    return result;
  }
  DataType dtype(const Field& field) const {
    auto parsed = parseDataType(string(field));
    if (!parsed)
      fail(field, "names an unknown dtype '" + string(field) + "'");
    return *parsed;
  }
  PatternKind pattern(const Field& field) const {
    const std::string& name = string(field);
    for (PatternKind kind :
         {PatternKind::ElemWise, PatternKind::Broadcast, PatternKind::Injective,
          PatternKind::CommReduce, PatternKind::OutEWiseFusable, PatternKind::Opaque})
      if (name == patternKindName(kind))
        return kind;
    fail(field, "names an unknown pattern kind '" + name + "'");
  }

private:
  ErrorContext context_;
};

AttributeValue readAttribute(const FieldReader& reader, const Field& field) {
  const Json& value = field.value;
  const bool isSpecialFloat = value == "inf" || value == "-inf" || value == "nan";
  if (value.is_number_integer())
    return reader.integer(field, kAnyInteger);
  if (value.is_number_float() || isSpecialFloat)
    return reader.real(field);
  if (value.is_string())
    return value.get<std::string>();
  reader.expect(field, value.is_array(), "integer, number, string or list of numbers");
  if (std::all_of(value.begin(), value.end(),
                  [](const Json& item) { return item.is_number_integer(); })) {
    std::vector<std::int64_t> integers;
    for (const Field& item : reader.elements(field))
      integers.push_back(reader.integer(item, kAnyInteger));
    return integers;
  }
  std::vector<double> reals;
  for (const Field& item : reader.elements(field))
    reals.push_back(reader.real(item));
  return reals;
}

TaskInput readInput(const FieldReader& reader, const Field& entry) {
  TaskInput input;
  input.shape = reader.shape(reader.member(entry, "shape"));
  input.dtype = reader.dtype(reader.member(entry, "dtype"));
  const Field kind = reader.member(entry, "kind");
  if (reader.string(kind) == "activation")
    input.kind = TaskInput::Kind::Activation;
  else if (reader.string(kind) == "weight")
    input.kind = TaskInput::Kind::Weight;
  else
    reader.fail(kind, "must be \"activation\" or \"weight\" (is \"" + reader.string(kind) + "\")");
  if (!entry.value.contains("value"))
    return input;
  const Field value = reader.member(entry, "value");
  if (input.kind != TaskInput::Kind::Weight)
    reader.fail(value, "is only allowed on weight inputs");
  const auto items = reader.elements(value);
  if (std::ssize(items) != elementCount(input.shape))
    reader.fail(value, "has " + std::to_string(items.size()) + " elements, the shape " +
                           shapeToString(input.shape) + " needs " +
                           std::to_string(elementCount(input.shape)));
  input.hasData = true;
  for (const Field& item : items) {
    if (isFloatingPoint(input.dtype))
      input.floatData.push_back(reader.real(item));
    else
      input.intData.push_back(reader.integer(item, kAnyInteger));
  }
  return input;
}

// Checks that a ref points at an existing input or at an output of an earlier node. Node operands
// may also be null (omitted) or a task input; task outputs must be node outputs.
TaskValueRef readRef(const FieldReader& reader, const Field& entry, const Task& task,
                     bool isOperand) {
  if (entry.value.is_null() && isOperand)
    return TaskValueRef::omitted();
  reader.expect(entry, entry.value.is_object(), "object");
  if (entry.value.contains("input") && isOperand) {
    const Field input = reader.member(entry, "input");
    const auto index = reader.integer(input, 0);
    if (index >= std::ssize(task.inputs))
      reader.fail(input, "refers to input " + std::to_string(index) + " of " +
                             std::to_string(task.inputs.size()));
    return TaskValueRef::input(static_cast<int>(index));
  }
  const Field node = reader.member(entry, "node");
  const auto nodeIndex = reader.integer(node, 0);
  if (nodeIndex >= std::ssize(task.nodes))
    reader.fail(node, "refers to node " + std::to_string(nodeIndex) +
                          ", which is not an earlier node (nodes must be in topological order)");
  const Field output = reader.member(entry, "output");
  const auto outputIndex = reader.integer(output, 0);
  const auto outputCount = task.nodes[nodeIndex].outputShapes.size();
  if (outputIndex >= static_cast<std::int64_t>(outputCount))
    reader.fail(output, "refers to output " + std::to_string(outputIndex) + " of node " +
                            std::to_string(nodeIndex) + ", which has " +
                            std::to_string(outputCount));
  return TaskValueRef::node(static_cast<int>(nodeIndex), static_cast<int>(outputIndex));
}

TaskNode readNode(const FieldReader& reader, const Field& entry, const Task& task) {
  TaskNode node;
  const Field op = reader.member(entry, "op");
  node.op = reader.string(op);
  if (node.op.empty())
    reader.fail(op, "is empty");
  node.pattern = reader.pattern(reader.member(entry, "pattern"));
  const Field attributes = reader.member(entry, "attrs");
  reader.expect(attributes, attributes.value.is_object(), "object");
  for (const auto& [name, value] : attributes.value.items())
    node.attributes[name] = readAttribute(reader, {value, attributes.path + "." + name});
  for (const Field& input : reader.elements(reader.member(entry, "inputs")))
    node.inputs.push_back(readRef(reader, input, task, true));
  const Field outputs = reader.member(entry, "outputs");
  for (const Field& output : reader.elements(outputs)) {
    node.outputShapes.push_back(reader.shape(reader.member(output, "shape")));
    node.outputTypes.push_back(reader.dtype(reader.member(output, "dtype")));
  }
  if (node.outputShapes.empty())
    reader.fail(outputs, "is empty");
  return node;
}

} // namespace

Task taskFromJson(const nlohmann::json& entry, const ErrorContext& context) {
  if (!entry.is_object())
    throw Error(std::string("a task entry must be a JSON object, not ") + entry.type_name(),
                context);
  FieldReader reader(context);
  const Field root{entry, ""};
  const Field version = reader.member(root, "v");
  if (reader.integer(version, 0) != 1)
    reader.fail(version, "is " + version.value.dump() + "; this clustune reads version 1");

  Task task;
  const Field key = reader.member(root, "key");
  task.key = reader.string(key);
  if (task.key.size() != 16 || task.key.find_first_not_of("0123456789abcdef") != std::string::npos)
    reader.fail(key, "must be 16 lower-case hex digits (is \"" + task.key + "\")");
  reader.setTask(task.key);
  task.anchor = reader.string(reader.member(root, "anchor"));
  task.pattern = reader.pattern(reader.member(root, "pattern"));

  const Field weights = reader.member(root, "weights");
  reader.expect(weights, weights.value.is_object(), "object");
  for (const auto& [model, count] : weights.value.items())
    task.weights[model] = reader.integer({count, "weights." + model}, 1);
  const Field weight = reader.member(root, "weight");
  if (reader.integer(weight, 0) != task.totalWeight())
    reader.fail(weight, "is " + weight.value.dump() + " but the counts in 'weights' sum to " +
                            std::to_string(task.totalWeight()));
  task.flops = reader.integer(reader.member(root, "flops"), 0);
  task.bytesRead = reader.integer(reader.member(root, "bytes_read"), 0);
  task.bytesWritten = reader.integer(reader.member(root, "bytes_written"), 0);

  for (const Field& input : reader.elements(reader.member(root, "inputs")))
    task.inputs.push_back(readInput(reader, input));
  const Field nodes = reader.member(root, "nodes");
  for (const Field& node : reader.elements(nodes))
    task.nodes.push_back(readNode(reader, node, task));
  if (task.nodes.empty())
    reader.fail(nodes, "is empty; a task has at least one node");
  const Field outputs = reader.member(root, "outputs");
  for (const Field& output : reader.elements(outputs))
    task.outputs.push_back(readRef(reader, output, task, false));
  if (task.outputs.empty())
    reader.fail(outputs, "is empty; a task writes at least one output");
  return task;
}

} // namespace clustune::graph
