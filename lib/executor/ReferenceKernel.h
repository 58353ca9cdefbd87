// The reference kernels of `clustune-run --check`: each task is evaluated by the interpreter
// (te/Interpreter.h, independent of scheduling and code generation) where that is fast, that is
// for tasks of at most `interpreterMaxFlops`, and by the compiled naive schedule otherwise
// (schedule/NaiveSchedule.h: plain loops in the order of the computation, each stage's
// outermost spatial loop parallel), the reference the Measurer uses for large tasks
// (docs/measurement.md). The
// interpreter needs about 25 s per GFLOP, minutes for ResNet-50; the naive loop nest is the
// simplest path through lowering and code generation, and that path is itself checked against
// the interpreter by the conformance suite and by this factory's small tasks.
#pragma once

#include "codegen/cpu/CpuTarget.h"
#include "executor/TaskKernel.h"
#include "schedule/Step.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace clustune::executor {

class ReferenceKernelFactory final : public KernelFactory {
public:
  // 0 interprets every task (the slow, fully independent reference).
  ReferenceKernelFactory(codegen::CpuTarget target, std::int64_t interpreterMaxFlops);
  ~ReferenceKernelFactory() override;

  std::unique_ptr<TaskKernel> create(const graph::Task& task) override;
  const char* name() const override { return "reference"; }

  int interpretedTasks() const { return interpreted_; }
  int compiledTasks() const { return compiled_; }

private:
  std::int64_t interpreterMaxFlops_;
  std::unique_ptr<KernelFactory> interpreter_;
  std::unique_ptr<KernelFactory> naive_;
  std::map<std::string, std::vector<schedule::Step>> naiveSteps_; // by workload key
  int interpreted_ = 0;
  int compiled_ = 0;
};

} // namespace clustune::executor
