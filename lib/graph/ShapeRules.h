// Internal to the shape inference (ShapeInference.h): what one operator's shape rule sees, and
// the tables of rules, one per family of operators (ElementwiseShapeRules.cpp,
// LayoutShapeRules.cpp, IndexingShapeRules.cpp, ComputeShapeRules.cpp). A rule reads its node's
// attributes, its inputs' types and shapes, and the data of inputs whose values are known at import
// (constants, and shape arithmetic folded on the way); it sets each output's type and shape, or
// fails with a message that names what is wrong.
#pragma once

#include "graph/Graph.h"

#include <climits>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace clustune::graph {

class ShapeContext {
public:
  ShapeContext(const Node& node, std::string label, int opset)
      : node(node), opset(opset), label_(std::move(label)) {}

  const Node& node;
  const int opset;
  std::vector<const Value*> inputs; // nullptr for an omitted optional input
  std::vector<const Value*> data;   // the input's value when known now, else nullptr
  std::vector<Value*> outputs;      // unnamed ones too, so that every output has a shape

  // Throws clustune::Error("shape inference failed: <message>") naming the node.
  [[noreturn]] void fail(const std::string& message) const;

  bool has(std::size_t index) const { return index < inputs.size() && inputs[index]; }
  // A required input; fails when it was omitted.
  const Value& input(std::size_t index) const;
  const Shape& shape(std::size_t index) const { return input(index).shape; }
  std::size_t rank(std::size_t index) const { return shape(index).size(); }

  // The integer data of input `index`: nullopt when the input is omitted; fails when its value
  // is only known at run time, since the output shape depends on it (`what` names it).
  std::optional<std::vector<std::int64_t>> constantInts(std::size_t index, const char* what) const;
  // Axes from input `index` (opsets that made them an input) or else from the attribute `axes`;
  // nullopt when neither is given.
  std::optional<std::vector<std::int64_t>> axesOperand(std::size_t index) const;

  // `axis` in [-rank, rank) made non-negative; fails naming `what` when out of range.
  std::int64_t axis(std::int64_t axis, std::size_t rank, const char* what = "axis") const;

  void setOutput(std::size_t index, DataType dtype, Shape shape);
  std::size_t outputCount() const { return outputs.size(); }

private:
  std::string label_;
};

using ShapeRule = void (*)(ShapeContext&);

struct ShapeRuleInfo {
  const char* op;
  int minInputs;
  int maxInputs;
  int minOutputs;
  int maxOutputs;
  ShapeRule rule;
};

constexpr int kVariadic = INT_MAX;

// The numpy broadcast of `shapes`; fails naming them when two disagree on an axis.
Shape broadcastShapes(const ShapeContext& context, const std::vector<Shape>& shapes);
// The rule of operators whose output has the type and shape of their first input.
void sameAsInput(ShapeContext& context);
// "2x3x4", or "a scalar".
std::string shapeText(const Shape& shape);

std::span<const ShapeRuleInfo> elementwiseShapeRules();
std::span<const ShapeRuleInfo> layoutShapeRules();
std::span<const ShapeRuleInfo> computeShapeRules();
std::span<const ShapeRuleInfo> indexingShapeRules();

} // namespace clustune::graph
