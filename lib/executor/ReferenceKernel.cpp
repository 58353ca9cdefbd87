// See ReferenceKernel.h.
#include "executor/ReferenceKernel.h"

#include "executor/CompiledKernel.h"
#include "schedule/NaiveSchedule.h"
#include "te/LowerTask.h"

namespace clustune::executor {

ReferenceKernelFactory::ReferenceKernelFactory(codegen::CpuTarget target,
                                               std::int64_t interpreterMaxFlops)
    : interpreterMaxFlops_(interpreterMaxFlops), interpreter_(makeInterpreterKernelFactory()),
      naive_(std::make_unique<CompiledKernelFactory>(
          std::move(target),
          [this](const std::string& key) { return std::optional(naiveSteps_.at(key)); })) {}

ReferenceKernelFactory::~ReferenceKernelFactory() = default;

std::unique_ptr<TaskKernel> ReferenceKernelFactory::create(const graph::Task& task) {
  if (interpreterMaxFlops_ <= 0 || task.flops <= interpreterMaxFlops_) {
    ++interpreted_;
    return interpreter_->create(task);
  }
  ++compiled_;
  naiveSteps_[task.key] = schedule::naiveSchedule(te::lowerTask(task));
  return naive_->create(task);
}

} // namespace clustune::executor
