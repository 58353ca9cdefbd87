// Tensors and workloads of the tensor-expression IR (DESIGN §4.3). A Workload is what one task
// lowers to: placeholders for the task's inputs and a topologically ordered list of compute
// stages, some of which are the task's outputs. Schedules (lib/schedule) transform how the
// stages are computed; they never change what is computed.
#pragma once

#include "te/Expr.h"

#include <functional>

namespace clustune::te {

enum class TensorKind { Placeholder, Compute };

struct TensorNode {
  std::string name;
  Shape shape;
  DataType dtype = DataType::Float32;
  TensorKind kind = TensorKind::Placeholder;
  // Compute only: one spatial axis per output dimension (extent = shape[i]) and the value at
  // those axes. The body is either free of Reduce, or a single Reduce at its top.
  std::vector<IterVar> axes = {};
  Expr body = {};

  bool isReduction() const { return body && body->kind == ExprKind::Reduce; }
};

Tensor placeholder(std::string name, Shape shape, DataType dtype = DataType::Float32);

// Builds a compute stage: `body` receives one index expression per output dimension (the axis
// variables) and returns the value. The stage's dtype is the body's.
Tensor compute(std::string name, Shape shape,
               const std::function<Expr(const std::vector<Expr>& indices)>& body);

struct Workload {
  std::string key;             // the task's workload key
  std::vector<Tensor> inputs;  // placeholders, in the task's input order
  std::vector<Tensor> stages;  // compute stages, producers before consumers
  std::vector<Tensor> outputs; // the task's outputs (each also in `stages`), in task order
};

// The tensors a stage reads directly (placeholders or stages), in first-use order.
std::vector<Tensor> producersOf(const Tensor& stage);

// Multi-line rendering of every stage, for debugging and golden tests.
std::string toString(const Workload& workload);

} // namespace clustune::te
