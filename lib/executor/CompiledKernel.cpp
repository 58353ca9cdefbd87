// See CompiledKernel.h.
#include "executor/CompiledKernel.h"

#include "codegen/cpu/CpuCodegen.h"
#include "codegen/cpu/JitLoader.h"
#include "measure/FaultInjection.h"
#include "measure/Runner.h"
#include "measure/SeededInputs.h"
#include "schedule/DefaultSchedule.h"
#include "schedule/Lower.h"
#include "schedule/State.h"
#include "support/Error.h"
#include "support/Stopwatch.h"
#include "te/LowerTask.h"

#include <cstdlib>
#include <spdlog/spdlog.h>

namespace clustune::executor {
namespace {

class CompiledKernel final : public TaskKernel {
public:
  CompiledKernel(codegen::LoadedKernel kernel, std::size_t arguments)
      : kernel_(std::move(kernel)), argumentCount_(arguments) {}

  void run(const std::vector<te::TensorView>& inputs,
           const std::vector<te::TensorView>& outputs) const override {
    std::vector<void*> arguments;
    arguments.reserve(argumentCount_);
    for (const te::TensorView& input : inputs)
      arguments.push_back(input.data);
    for (const te::TensorView& output : outputs)
      arguments.push_back(output.data);
    if (arguments.size() != argumentCount_)
      throw Error("kernel " + kernel_.functionName() + " takes " + std::to_string(argumentCount_) +
                  " buffers, given " + std::to_string(arguments.size()));
    kernel_.run(arguments.data());
  }

private:
  codegen::LoadedKernel kernel_;
  std::size_t argumentCount_;
};

} // namespace

CompiledKernelFactory::CompiledKernelFactory(codegen::CpuTarget target, ScheduleSource scheduleFor,
                                             bool isolate)
    : target_(std::move(target)), scheduleFor_(std::move(scheduleFor)) {
  if (isolate) {
    measure::RunnerOptions options;
    options.timing = {.number = 1, .repeat = 1, .minRepeatMs = 0, .cacheFlush = false};
    isolationRunner_ = std::make_unique<measure::Runner>(options);
  }
}

CompiledKernelFactory::~CompiledKernelFactory() = default;

std::unique_ptr<TaskKernel> CompiledKernelFactory::create(const graph::Task& task) {
  const auto start = SteadyClock::now();
  const te::Workload workload = te::lowerTask(task);
  std::optional<std::vector<schedule::Step>> steps;
  if (scheduleFor_)
    steps = scheduleFor_(task.key);
  if (!steps)
    steps = schedule::defaultSchedule(
        workload, {.cores = target_.cores, .vectorLanes = target_.vectorBits / 32});
  const schedule::State state = schedule::replay(workload, *steps);
  const std::string functionName = "clustune_task_" + task.key;
  te::LoweredFunction function = schedule::lower(workload, state, functionName);
  if (const char* faulty = std::getenv(kFaultInjectionVariable); faulty && task.key == faulty)
    function = measure::injectFault(std::move(function), measure::InjectedFault::Crash);
  const std::string object = codegen::compileToObject(function, target_);
  if (isolationRunner_) {
    const auto outcome = isolationRunner_->runObject(
        object, functionName, measure::argumentSpecs(task, workload), /*returnOutputs=*/false);
    if (!outcome.ok())
      throw Error("kernel of " + task.anchor +
                  " task failed in the isolated worker: " + outcome.error +
                  (outcome.errorDetail.empty() ? "" : " (" + outcome.errorDetail + ")"));
  }
  codegen::LoadedKernel kernel(object, functionName);
  compileSeconds_.push_back(secondsSince(start));
  spdlog::debug("compiled task {} ({}) in {:.3f} s", task.key, task.anchor, compileSeconds_.back());
  return std::make_unique<CompiledKernel>(std::move(kernel), function.arguments.size());
}

} // namespace clustune::executor
