// An executable implementation of one task, as the graph executor sees it: compiled code
// (lib/codegen) or the reference interpreter (te/Interpreter.h). Kernels are created once per
// distinct task (workload key) and run for every occurrence of it in a model.
#pragma once

#include "graph/Task.h"
#include "te/TensorData.h"

#include <memory>
#include <vector>

namespace clustune::executor {

class TaskKernel {
public:
  virtual ~TaskKernel() = default;
  // `inputs` and `outputs` follow the task's canonical order; the caller provides output memory
  // of the task's output shapes and dtypes. Kernels only read through input views.
  virtual void run(const std::vector<te::TensorView>& inputs,
                   const std::vector<te::TensorView>& outputs) const = 0;
};

class KernelFactory {
public:
  virtual ~KernelFactory() = default;
  // Throws clustune::Error naming the task when it cannot be implemented.
  virtual std::unique_ptr<TaskKernel> create(const graph::Task& task) = 0;
  virtual const char* name() const = 0;
};

// Kernels that evaluate the task's tensor expressions with the reference interpreter: slow,
// and independent of code generation.
std::unique_ptr<KernelFactory> makeInterpreterKernelFactory();

} // namespace clustune::executor
