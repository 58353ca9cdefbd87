// The interpreter-backed kernels of TaskKernel.h: lower the task to a Workload once, then
// evaluate it with te::evaluateWorkload for every run.
#include "executor/TaskKernel.h"
#include "te/Interpreter.h"
#include "te/LowerTask.h"

#include <cassert>
#include <cstring>

namespace clustune::executor {
namespace {

class InterpreterKernel final : public TaskKernel {
public:
  explicit InterpreterKernel(te::Workload workload) : workload_(std::move(workload)) {}

  void run(const std::vector<te::TensorView>& inputs,
           const std::vector<te::TensorView>& outputs) const override {
    std::vector<te::TensorData> inputValues;
    inputValues.reserve(inputs.size());
    for (const te::TensorView& input : inputs) {
      te::TensorData copy(input.dtype, input.shape);
      if (copy.byteSize() > 0) // an empty tensor's pointers may be null, which memcpy may not take
        std::memcpy(copy.data(), input.data, copy.byteSize());
      inputValues.push_back(std::move(copy));
    }
    const std::vector<te::TensorData> results = te::evaluateWorkload(workload_, inputValues);
    assert(results.size() == outputs.size());
    for (std::size_t i = 0; i < outputs.size(); ++i)
      if (results[i].byteSize() > 0)
        std::memcpy(outputs[i].data, results[i].data(), results[i].byteSize());
  }

private:
  te::Workload workload_;
};

class InterpreterKernelFactory final : public KernelFactory {
public:
  std::unique_ptr<TaskKernel> create(const graph::Task& task) override {
    return std::make_unique<InterpreterKernel>(te::lowerTask(task));
  }
  const char* name() const override { return "interpreter"; }
};

} // namespace

std::unique_ptr<KernelFactory> makeInterpreterKernelFactory() {
  return std::make_unique<InterpreterKernelFactory>();
}

} // namespace clustune::executor
