// Kernels compiled to x86 code: each task is lowered to a Workload, scheduled (the default
// schedule, or a given one), lowered to a loop nest, compiled by lib/codegen and loaded into
// the process. This is how clustune-run executes a model.
#pragma once

#include "codegen/cpu/CpuTarget.h"
#include "executor/TaskKernel.h"
#include "schedule/Step.h"

#include <functional>
#include <map>
#include <optional>

namespace clustune::executor {

class CompiledKernelFactory final : public KernelFactory {
public:
  // `scheduleFor` may supply a tuned schedule for a workload key; nullopt means the default.
  using ScheduleSource =
      std::function<std::optional<std::vector<schedule::Step>>(const std::string& key)>;

  explicit CompiledKernelFactory(codegen::CpuTarget target, ScheduleSource scheduleFor = {});

  std::unique_ptr<TaskKernel> create(const graph::Task& task) override;
  const char* name() const override { return "compiled"; }

  // Seconds spent compiling each task so far (lowering, scheduling, LLVM, loading).
  const std::vector<double>& compileSeconds() const { return compileSeconds_; }

private:
  codegen::CpuTarget target_;
  ScheduleSource scheduleFor_;
  std::vector<double> compileSeconds_;
};

} // namespace clustune::executor
