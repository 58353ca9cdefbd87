// See ReferenceKernel.h.
#include "executor/ReferenceKernel.h"

#include "executor/CompiledKernel.h"

namespace clustune::executor {

ReferenceKernelFactory::ReferenceKernelFactory(codegen::CpuTarget target,
                                               std::int64_t interpreterMaxFlops)
    : interpreterMaxFlops_(interpreterMaxFlops), interpreter_(makeInterpreterKernelFactory()),
      naive_(std::make_unique<CompiledKernelFactory>(std::move(target), [](const std::string&) {
        return std::optional(std::vector<schedule::Step>{});
      })) {}

ReferenceKernelFactory::~ReferenceKernelFactory() = default;

std::unique_ptr<TaskKernel> ReferenceKernelFactory::create(const graph::Task& task) {
  if (interpreterMaxFlops_ <= 0 || task.flops <= interpreterMaxFlops_) {
    ++interpreted_;
    return interpreter_->create(task);
  }
  ++compiled_;
  return naive_->create(task);
}

} // namespace clustune::executor
