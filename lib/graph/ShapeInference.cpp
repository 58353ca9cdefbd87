// See ShapeInference.h. The driver: it checks each node's input and output counts against its
// rule's, runs the rule, checks the shapes the rule set, and evaluates the node when all its
// inputs are known, keeping those values aside for the rules of later nodes.
#include "graph/ShapeInference.h"

#include "graph/ConstantFolding.h"
#include "graph/OpRegistry.h"
#include "graph/ShapeRules.h"
#include "support/Error.h"

#include <algorithm>
#include <memory>
#include <unordered_map>

namespace clustune::graph {
namespace {

// Values evaluated during inference are kept only while they are small: shapes, axes and
// indices, not weights.
constexpr std::int64_t kMaxEvaluatedElements = 1 << 16;

const std::unordered_map<std::string, const ShapeRuleInfo*>& ruleTable() {
  static const auto table = [] {
    std::unordered_map<std::string, const ShapeRuleInfo*> rules;
    for (auto family :
         {elementwiseShapeRules(), layoutShapeRules(), indexingShapeRules(), computeShapeRules()})
      for (const ShapeRuleInfo& info : family)
        rules.emplace(info.op, &info);
    return rules;
  }();
  return table;
}

std::string countText(int count, const char* noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

std::string rangeText(int low, int high, const char* noun) {
  if (low == high)
    return countText(low, noun);
  if (high == kVariadic)
    return "at least " + countText(low, noun);
  return std::to_string(low) + " to " + countText(high, noun);
}

void checkCounts(const ShapeContext& context, const ShapeRuleInfo& info, int inputs, int outputs) {
  if (inputs < info.minInputs || inputs > info.maxInputs)
    context.fail(std::string(info.op) + " takes " +
                 rangeText(info.minInputs, info.maxInputs, "input") + ", not " +
                 std::to_string(inputs));
  if (outputs < info.minOutputs || outputs > info.maxOutputs)
    context.fail(std::string(info.op) + " has " +
                 rangeText(info.minOutputs, info.maxOutputs, "output") + ", not " +
                 std::to_string(outputs));
}

bool evaluable(const ShapeContext& context) {
  if (context.node.op == "Shape" || context.node.op == "Size")
    return true;
  if (context.inputs.empty() && context.node.op != "ConstantOfShape")
    return false;
  for (std::size_t i = 0; i < context.inputs.size(); ++i)
    if (context.inputs[i] && !context.data[i])
      return false;
  return true;
}

} // namespace

void ShapeContext::fail(const std::string& message) const {
  throw Error("shape inference failed: " + message, {.node = label_});
}

const Value& ShapeContext::input(std::size_t index) const {
  if (!has(index))
    fail(node.op + " needs input " + std::to_string(index + 1) + ", which is missing");
  return *inputs[index];
}

std::optional<std::vector<std::int64_t>> ShapeContext::constantInts(std::size_t index,
                                                                    const char* what) const {
  if (!has(index))
    return std::nullopt;
  const Value* known = data[index];
  if (!known)
    fail(node.op + "'s " + what + " ('" + inputs[index]->name +
         "') is only known at run time, so its output shape is dynamic; clustune needs static "
         "shapes (give fixed input shapes, or export with constant " +
         what + ")");
  if (isFloatingPoint(known->dtype))
    fail(node.op + "'s " + what + " must be integers, not " + dataTypeName(known->dtype));
  return known->intData;
}

std::optional<std::vector<std::int64_t>> ShapeContext::axesOperand(std::size_t index) const {
  if (auto axes = constantInts(index, "axes"))
    return axes;
  if (node.attribute("axes"))
    return node.intsAttribute("axes");
  return std::nullopt;
}

std::int64_t ShapeContext::axis(std::int64_t axis, std::size_t rank, const char* what) const {
  const auto signedRank = static_cast<std::int64_t>(rank);
  if (axis < -signedRank || axis >= signedRank)
    fail(std::string(what) + " " + std::to_string(axis) + " is out of range for rank " +
         std::to_string(rank));
  return axis < 0 ? axis + signedRank : axis;
}

void ShapeContext::setOutput(std::size_t index, DataType dtype, Shape shape) {
  if (index >= outputs.size() || !outputs[index])
    return;
  for (std::int64_t extent : shape)
    if (extent < 0)
      fail("output " + std::to_string(index + 1) + " would have a negative dimension (" +
           shapeText(shape) + ")");
  if (!checkedElementCount(shape))
    fail("output " + std::to_string(index + 1) + " would have more elements than fit in 64 bits");
  outputs[index]->dtype = dtype;
  outputs[index]->shape = std::move(shape);
}

void sameAsInput(ShapeContext& context) {
  context.setOutput(0, context.input(0).dtype, context.shape(0));
}

std::string shapeText(const Shape& shape) {
  return shape.empty() ? "a scalar" : shapeToString(shape);
}

Shape broadcastShapes(const ShapeContext& context, const std::vector<Shape>& shapes) {
  std::size_t rank = 0;
  for (const Shape& shape : shapes)
    rank = std::max(rank, shape.size());
  Shape result(rank, 1);
  for (const Shape& shape : shapes)
    for (std::size_t k = 0; k < shape.size(); ++k) {
      std::int64_t& out = result[rank - shape.size() + k];
      const std::int64_t extent = shape[k];
      if (extent == out || extent == 1)
        continue;
      if (out != 1) {
        std::string listed;
        for (const Shape& each : shapes)
          listed += (listed.empty() ? "" : ", ") + shapeText(each);
        context.fail(context.node.op + " cannot broadcast its input shapes together (" + listed +
                     ")");
      }
      out = extent;
    }
  return result;
}

void inferShapes(Graph& graph, int opset) {
  const auto& rules = ruleTable();
  std::unordered_map<ValueId, std::unique_ptr<Value>> evaluated;
  auto knownData = [&](ValueId id) -> const Value* {
    const Value& value = graph.values[id];
    if (value.kind == ValueKind::Constant && value.hasData)
      return &value;
    auto found = evaluated.find(id);
    return found == evaluated.end() ? nullptr : found->second.get();
  };

  for (NodeId id = 0; id < static_cast<NodeId>(graph.nodes.size()); ++id) {
    const Node& node = graph.nodes[id];
    if (node.erased)
      continue;
    ShapeContext context(node, graph.nodeLabel(id), opset);
    auto rule = rules.find(node.op);
    if (rule == rules.end())
      context.fail("no shape rule for operator '" + node.op + "'");
    for (ValueId input : node.inputs) {
      context.inputs.push_back(input == kNoValue ? nullptr : &graph.values[input]);
      context.data.push_back(input == kNoValue ? nullptr : knownData(input));
    }
    for (ValueId output : node.outputs)
      context.outputs.push_back(&graph.values[output]);
    checkCounts(context, *rule->second, static_cast<int>(node.inputs.size()),
                static_cast<int>(node.outputs.size()));
    rule->second->rule(context);

    if (node.outputs.size() != 1 || !evaluable(context))
      continue;
    auto value = std::make_unique<Value>(graph.values[node.outputs[0]]);
    if (value->elements() > kMaxEvaluatedElements)
      continue;
    // Shape and Size read only their input's shape, which every input has.
    const bool shapeOnly = node.op == "Shape" || node.op == "Size";
    try {
      if (!evaluateNode(node, shapeOnly ? context.inputs : context.data, *value))
        continue;
    } catch (const Error& error) {
      context.fail(error.message());
    }
    value->kind = ValueKind::Constant;
    value->hasData = true;
    evaluated.emplace(node.outputs[0], std::move(value));
  }
}

std::vector<std::string> operatorsWithoutShapeRule() {
  std::vector<std::string> missing;
  for (const std::string& op : supportedOps())
    if (op != "Constant" && !ruleTable().count(op))
      missing.push_back(op);
  return missing;
}

} // namespace clustune::graph
