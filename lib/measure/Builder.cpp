// See Builder.h.
#include "measure/Builder.h"

#include "codegen/cpu/CpuCodegen.h"
#include "codegen/cuda/Ptxas.h"
#include "measure/IsolatedBuild.h"
#include "runtime/ThreadPool.h"
#include "schedule/Lower.h"
#include "schedule/State.h"
#include "support/Stopwatch.h"
#include "te/LowerTask.h"

#include <algorithm>
#include <atomic>
#include <numeric>

namespace clustune::measure {
namespace {

// A symbol name for the kernel; keys are hex digits, so the name is a valid C identifier.
std::string kernelName(const graph::Task& task) {
  return task.key.empty() ? "clustune_candidate" : "clustune_task_" + task.key;
}

} // namespace

BuildResult buildCandidate(const MeasureInput& input, const BuildTarget& target) {
  const auto start = SteadyClock::now();
  BuildResult result;
  result.functionName = kernelName(input.task);
  try {
    const te::Workload workload = te::lowerTask(input.task);
    result.arguments = argumentSpecs(input.task, workload);
    schedule::State state;
    try {
      state = schedule::replay(workload, input.steps);
    } catch (const schedule::InvalidScheduleError& error) {
      result.error = errors::kInvalidSchedule;
      result.errorDetail = error.what();
    }
    if (result.ok()) {
      const te::LoweredFunction function =
          injectFault(schedule::lower(workload, state, result.functionName), input.fault);
      if (const auto* gpu = std::get_if<codegen::CudaTarget>(&target)) {
        result.gpu = codegen::compileToPtx(function, *gpu);
        codegen::attachCubin(result.gpu, *gpu);
      } else
        result.objectBytes =
            codegen::compileToObject(function, std::get<codegen::CpuTarget>(target));
    }
  } catch (const std::exception& error) {
    result.error = errors::kCompile;
    result.errorDetail = error.what();
  }
  if (!result.ok()) {
    result.objectBytes.clear();
    result.gpu = {};
  }
  result.compileSeconds = secondsSince(start);
  return result;
}

std::vector<std::size_t> buildOrder(const std::vector<MeasureInput>& inputs) {
  std::vector<int> unrollStep(inputs.size(), 0);
  for (std::size_t i = 0; i < inputs.size(); ++i)
    for (const schedule::Step& step : inputs[i].steps)
      if (const auto* pragma = std::get_if<schedule::PragmaStep>(&step))
        unrollStep[i] = std::max(unrollStep[i], pragma->autoUnrollMaxStep);
  std::vector<std::size_t> order(inputs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return unrollStep[a] > unrollStep[b]; });
  return order;
}

std::vector<BuildResult> build(const std::vector<MeasureInput>& inputs, const BuildTarget& target,
                               int parallelism, double timeoutSeconds) {
  if (timeoutSeconds > 0)
    return buildInChildProcesses(inputs, target, parallelism, timeoutSeconds);
  std::vector<BuildResult> results(inputs.size());
  const int threads =
      std::max(1, std::min(parallelism, static_cast<int>(std::max<std::size_t>(inputs.size(), 1))));
  // Candidates differ a lot in compile time, so each thread claims the next unbuilt one rather
  // than taking a fixed share.
  const std::vector<std::size_t> order = buildOrder(inputs);
  std::atomic<std::size_t> next{0};
  auto work = [&](std::int64_t, std::int64_t) {
    for (std::size_t position = next++; position < order.size(); position = next++)
      results[order[position]] = buildCandidate(inputs[order[position]], target);
  };
  if (threads == 1) {
    work(0, 1);
    return results;
  }
  runtime::ThreadPool pool(threads);
  pool.parallelFor(threads, work);
  return results;
}

} // namespace clustune::measure
