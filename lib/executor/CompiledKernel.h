// Kernels compiled to x86 code: each task is lowered to a Workload, scheduled (the default
// schedule, or a given one), lowered to a loop nest, compiled by lib/codegen and loaded into
// the process. This is how clustune-run executes a model.
#pragma once

#include "codegen/cpu/CpuTarget.h"
#include "executor/TaskKernel.h"
#include "schedule/Step.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>

namespace clustune::measure {
class Runner;
}

namespace clustune::executor {

class CompiledKernelFactory final : public KernelFactory {
public:
  // `scheduleFor` may supply a tuned schedule for a workload key; nullopt means the default.
  using ScheduleSource =
      std::function<std::optional<std::vector<schedule::Step>>(const std::string& key)>;

  // With `isolate`, every kernel first runs once in the isolated measurement worker
  // (lib/measure), so that a kernel that faults or hangs becomes an Error naming its task
  // instead of taking the process down when the model runs.
  explicit CompiledKernelFactory(codegen::CpuTarget target, ScheduleSource scheduleFor = {},
                                 bool isolate = false);
  ~CompiledKernelFactory() override;

  std::unique_ptr<TaskKernel> create(const graph::Task& task) override;
  const char* name() const override { return "compiled"; }

  // Seconds spent compiling each task so far (lowering, scheduling, LLVM, loading).
  const std::vector<double>& compileSeconds() const { return compileSeconds_; }

  // Fault injection for tests of the isolation: the task with this workload key (from the
  // environment variable CLUSTUNE_FAULT_INJECTION_TASK) gets a kernel that writes far out of
  // bounds (measure/FaultInjection.h). Never set outside tests.
  static constexpr const char* kFaultInjectionVariable = "CLUSTUNE_FAULT_INJECTION_TASK";

private:
  codegen::CpuTarget target_;
  ScheduleSource scheduleFor_;
  std::unique_ptr<measure::Runner> isolationRunner_;
  std::vector<double> compileSeconds_;
};

} // namespace clustune::executor
