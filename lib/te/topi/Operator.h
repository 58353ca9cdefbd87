// The interface between task lowering (te/LowerTask.h) and the per-operator lowerings in
// te/topi/ (TVM's "topi"): each ONNX operator has a function that builds the compute stages of
// one task node from the tensors of its operands. Operator families live in one file each
// (Elementwise, Layout, Indexing, Resize, Reduction, Convolution, ConvTranspose, MatMul, Pooling,
// Generator, BlockedLayout) and register themselves in operatorRegistry.
#pragma once

#include "graph/Task.h"
#include "te/Tensor.h"

#include <functional>
#include <map>
#include <string>

namespace clustune::te::topi {

struct OperatorContext {
  const graph::TaskNode& node;
  // One tensor per operand slot of the node; null for an omitted optional operand.
  std::vector<Tensor> operands;
  // For operands that are task inputs, the task input (its kind, and its `value` when it is a
  // single-element constant); null for operands computed by other nodes of the task.
  std::vector<const graph::TaskInput*> operandInputs;
  // Prefix for the names of the stages this node creates, unique within the workload
  // (e.g. "n2.conv"); append to it for extra stages ("n2.conv.pad").
  std::string stageName;

  const Tensor& operand(std::size_t index) const { return operands.at(index); }
  bool hasOperand(std::size_t index) const { return index < operands.size() && operands[index]; }
  // Errors raised while lowering name the op; LowerTask adds the task key.
  [[noreturn]] void fail(const std::string& message) const;
};

// Returns one tensor per node output (in output order), each with exactly the shape and dtype
// the task records for that output.
using OperatorLowering = std::function<std::vector<Tensor>(const OperatorContext&)>;
using OperatorRegistry = std::map<std::string, OperatorLowering>;

void registerElementwiseOperators(OperatorRegistry& registry);
void registerLayoutOperators(OperatorRegistry& registry);
void registerIndexingOperators(OperatorRegistry& registry);
void registerResizeOperators(OperatorRegistry& registry);
void registerReductionOperators(OperatorRegistry& registry);
void registerConvolutionOperators(OperatorRegistry& registry);
void registerConvTransposeOperators(OperatorRegistry& registry);
void registerMatMulOperators(OperatorRegistry& registry);
void registerPoolingOperators(OperatorRegistry& registry);
void registerGeneratorOperators(OperatorRegistry& registry);
void registerBlockedLayoutOperators(OperatorRegistry& registry);

// Every lowering, built once.
const OperatorRegistry& operatorRegistry();

} // namespace clustune::te::topi
