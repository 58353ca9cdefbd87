// See LowerTask.h.
#include "te/LowerTask.h"

#include "support/Error.h"
#include "te/topi/Operator.h"

#include <functional>
#include <unordered_set>

namespace clustune::te {
namespace {

std::string lowerCase(std::string text) {
  for (char& c : text)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// Compute stages reachable from the outputs, producers first.
std::vector<Tensor> collectStages(const std::vector<Tensor>& outputs) {
  std::vector<Tensor> order;
  std::unordered_set<const TensorNode*> visited;
  std::function<void(const Tensor&)> visit = [&](const Tensor& tensor) {
    if (tensor->kind != TensorKind::Compute || !visited.insert(tensor.get()).second)
      return;
    for (const Tensor& producer : producersOf(tensor))
      visit(producer);
    order.push_back(tensor);
  };
  for (const Tensor& output : outputs)
    visit(output);
  return order;
}

} // namespace

namespace topi {

void OperatorContext::fail(const std::string& message) const {
  throw Error(node.op + ": " + message);
}

const OperatorRegistry& operatorRegistry() {
  static const OperatorRegistry registry = [] {
    OperatorRegistry all;
    registerElementwiseOperators(all);
    registerLayoutOperators(all);
    registerIndexingOperators(all);
    registerResizeOperators(all);
    registerReductionOperators(all);
    registerConvolutionOperators(all);
    registerConvTransposeOperators(all);
    registerMatMulOperators(all);
    registerPoolingOperators(all);
    registerGeneratorOperators(all);
    registerBlockedLayoutOperators(all);
    return all;
  }();
  return registry;
}

} // namespace topi

bool canLower(const graph::Task& task) {
  const auto& registry = topi::operatorRegistry();
  for (const auto& node : task.nodes)
    if (!registry.count(node.op))
      return false;
  return true;
}

Workload lowerTask(const graph::Task& task) {
  const auto& registry = topi::operatorRegistry();
  Workload workload;
  workload.key = task.key;
  for (std::size_t i = 0; i < task.inputs.size(); ++i)
    workload.inputs.push_back(
        placeholder("input" + std::to_string(i), task.inputs[i].shape, task.inputs[i].dtype));

  std::vector<std::vector<Tensor>> nodeOutputs;
  for (std::size_t index = 0; index < task.nodes.size(); ++index) {
    const graph::TaskNode& node = task.nodes[index];
    auto lowering = registry.find(node.op);
    if (lowering == registry.end())
      throw Error("no lowering for operator '" + node.op + "'", {.task = task.key});
    topi::OperatorContext context{.node = node,
                                  .operands = {},
                                  .operandInputs = {},
                                  .stageName =
                                      "n" + std::to_string(index) + "." + lowerCase(node.op)};
    for (const graph::TaskValueRef& ref : node.inputs) {
      switch (ref.kind) {
      case graph::TaskValueRef::Kind::Input:
        context.operands.push_back(workload.inputs.at(ref.index));
        context.operandInputs.push_back(&task.inputs.at(ref.index));
        break;
      case graph::TaskValueRef::Kind::Node:
        context.operands.push_back(nodeOutputs.at(ref.index).at(ref.output));
        context.operandInputs.push_back(nullptr);
        break;
      case graph::TaskValueRef::Kind::Omitted:
        context.operands.push_back(nullptr);
        context.operandInputs.push_back(nullptr);
        break;
      }
    }
    std::vector<Tensor> outputs;
    try {
      outputs = lowering->second(context);
    } catch (const Error& error) {
      throw Error(error.message(), {.task = task.key});
    }
    if (outputs.size() != node.outputShapes.size())
      throw Error(node.op + ": lowering produced " + std::to_string(outputs.size()) +
                      " outputs, the task records " + std::to_string(node.outputShapes.size()),
                  {.task = task.key});
    for (std::size_t k = 0; k < outputs.size(); ++k)
      if (outputs[k]->shape != node.outputShapes[k] || outputs[k]->dtype != node.outputTypes[k])
        throw Error(node.op + ": lowering produced " + graph::dataTypeName(outputs[k]->dtype) +
                        "[" + graph::shapeToString(outputs[k]->shape) + "], the task records " +
                        graph::dataTypeName(node.outputTypes[k]) + "[" +
                        graph::shapeToString(node.outputShapes[k]) + "]",
                    {.task = task.key});
    nodeOutputs.push_back(std::move(outputs));
  }
  for (const graph::TaskValueRef& ref : task.outputs) {
    Tensor output = ref.kind == graph::TaskValueRef::Kind::Node
                        ? nodeOutputs.at(ref.index).at(ref.output)
                        : workload.inputs.at(ref.index);
    if (output->kind == TensorKind::Placeholder) // a pass-through output still needs a stage
      output = compute(output->name + ".copy", output->shape,
                       [&](const std::vector<Expr>& indices) { return load(output, indices); });
    workload.outputs.push_back(output);
  }
  workload.stages = collectStages(workload.outputs);
  return workload;
}

} // namespace clustune::te
