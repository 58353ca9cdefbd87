#include "costmodel/TaskTags.h"

#include <set>
#include <string>

namespace clustune::costmodel {
namespace {

// Operators that only move or reinterpret data; a task made of these alone is a copy.
const std::set<std::string>& dataMovementOps() {
  static const std::set<std::string> ops = {
      "Concat", "Reshape", "Flatten",  "Transpose", "Gather", "Squeeze", "Unsqueeze",
      "Slice",  "Split",   "Identity", "Expand",    "Pad",    "Cast",    "Shape"};
  return ops;
}

std::int64_t intAttribute(const graph::TaskNode& node, const std::string& key,
                          std::int64_t fallback) {
  const auto found = node.attributes.find(key);
  if (found == node.attributes.end())
    return fallback;
  if (const auto* value = std::get_if<std::int64_t>(&found->second))
    return *value;
  return fallback;
}

// Input channels of a Conv node: dimension 1 of its data operand.
std::int64_t convolutionInputChannels(const graph::Task& task, const graph::TaskNode& node) {
  if (node.inputs.empty())
    return 0;
  const graph::TaskValueRef& data = node.inputs[0];
  const graph::Shape* shape = nullptr;
  if (data.kind == graph::TaskValueRef::Kind::Input)
    shape = &task.inputs[static_cast<std::size_t>(data.index)].shape;
  else if (data.kind == graph::TaskValueRef::Kind::Node)
    shape = &task.nodes[static_cast<std::size_t>(data.index)]
                 .outputShapes[static_cast<std::size_t>(data.output)];
  return shape && shape->size() > 1 ? (*shape)[1] : 0;
}

std::size_t outputRank(const graph::TaskNode& node) {
  return node.outputShapes.empty() ? 0 : node.outputShapes[0].size();
}

} // namespace

std::array<float, kTaskTagCount> taskTags(const graph::Task& task) {
  std::array<float, kTaskTagCount> tags = {};
  auto set = [&](TaskTag tag) { tags[static_cast<std::size_t>(tag)] = 1.0f; };
  bool onlyDataMovement = true;
  for (const graph::TaskNode& node : task.nodes) {
    if (!dataMovementOps().count(node.op))
      onlyDataMovement = false;
    if (node.op == "Conv" || node.op == "ConvTranspose") {
      set(TaskTag::Convolution);
      const std::int64_t group = intAttribute(node, "group", 1);
      const std::int64_t channels = convolutionInputChannels(task, node);
      if (group > 1 && group == channels)
        set(TaskTag::DepthwiseConvolution);
      else if (group > 1)
        set(TaskTag::GroupedConvolution);
    } else if (node.op == "Gemm") {
      set(TaskTag::Dense);
    } else if (node.op == "MatMul") {
      set(outputRank(node) > 2 ? TaskTag::BatchedMatMul : TaskTag::Dense);
    } else if (node.op == "Softmax" || node.op == "LogSoftmax") {
      set(TaskTag::Softmax);
    } else if (node.op == "LayerNormalization" || node.op == "ReduceMean" ||
               node.op == "ReduceSum") {
      set(TaskTag::Normalisation);
    } else if (node.op == "MaxPool" || node.op == "AveragePool" || node.op == "GlobalAveragePool") {
      set(TaskTag::Pooling);
    }
  }
  if (onlyDataMovement)
    set(TaskTag::DataMovementOnly);
  return tags;
}

} // namespace clustune::costmodel
