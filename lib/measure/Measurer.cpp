// See Measurer.h.
#include "measure/Measurer.h"

#include "measure/Correctness.h"
#include "schedule/NaiveSchedule.h"
#include "support/Error.h"
#include "support/Stopwatch.h"
#include "te/LowerTask.h"

#include <algorithm>
#include <iterator>
#include <spdlog/spdlog.h>

namespace clustune::measure {
namespace {

// Adds the wall time of its scope to `total`.
class ScopedSeconds {
public:
  explicit ScopedSeconds(double& total) : total_(total) {}
  ~ScopedSeconds() { total_ += secondsSince(start_); }
  ScopedSeconds(const ScopedSeconds&) = delete;
  ScopedSeconds& operator=(const ScopedSeconds&) = delete;

private:
  double& total_;
  SteadyClock::time_point start_ = SteadyClock::now();
};

std::string workloadKey(const graph::Task& task) {
  return task.key.empty() ? graph::computeTaskKey(task) : task.key;
}

// The task's naive kernel, the reference of tasks too large to interpret.
MeasureInput naiveCandidate(const graph::Task& task) {
  return {.task = task, .steps = schedule::naiveSchedule(te::lowerTask(task))};
}

} // namespace

Measurer::Measurer(codegen::CpuTarget target, MeasureOptions options)
    : target_(std::move(target)), options_(std::move(options)), runner_(options_.runner),
      faults_(measureFaultsFromEnvironment()) {}

const Measurer::Reference& Measurer::referenceFor(const graph::Task& task) {
  const std::string key = workloadKey(task);
  auto found = references_.find(key);
  if (found != references_.end())
    return found->second;
  ScopedSeconds timed(profile_.reference);
  Reference reference;
  const bool large = hasCompiledReference(task);
  std::string whyNotCompiled;
  if (auto outputs = large ? compiledNaiveOutputs(task, whyNotCompiled) : std::nullopt) {
    reference.outputs = std::move(*outputs);
    return references_.emplace(key, std::move(reference)).first->second;
  }
  if (large)
    spdlog::warn("task {}: the naive schedule gave no reference ({}); interpreting instead", key,
                 whyNotCompiled);
  try {
    reference.outputs = referenceOutputs(task, options_.runner.seed);
  } catch (const std::exception& error) {
    reference.error = error.what();
  }
  return references_.emplace(key, std::move(reference)).first->second;
}

bool Measurer::hasCompiledReference(const graph::Task& task) const {
  return options_.interpreterReferenceMaxFlops > 0 &&
         task.flops > options_.interpreterReferenceMaxFlops;
}

std::optional<std::vector<te::TensorData>> Measurer::compiledNaiveOutputs(const graph::Task& task,
                                                                          std::string& why) {
  BuildResult built;
  if (auto prebuilt = naiveBuilds_.find(workloadKey(task)); prebuilt != naiveBuilds_.end()) {
    built = std::move(prebuilt->second);
    naiveBuilds_.erase(prebuilt);
  } else {
    built = buildCandidate(naiveCandidate(task), target_);
  }
  if (!built.ok()) {
    why = built.error + ": " + built.errorDetail;
    return std::nullopt;
  }
  const TimingOptions once{.number = 1, .repeat = 1, .minRepeatMs = 0, .cacheFlush = false};
  RunOutcome outcome = runner_.run(built, true, once, options_.referenceTimeoutSeconds);
  if (!outcome.ok()) {
    why = outcome.error + ": " + outcome.errorDetail;
    return std::nullopt;
  }
  return std::move(outcome.outputs);
}

MeasureResult Measurer::measureBuilt(const graph::Task& task, const BuildResult& built) {
  MeasureResult result{.compileSeconds = built.compileSeconds};
  if (!built.ok()) {
    result.error = built.error;
    result.errorDetail = built.errorDetail;
    return result;
  }
  const std::string key = workloadKey(task);
  TimingOptions timing = options_.runner.timing;
  if (auto best = bestCost_.find(key); best != bestCost_.end() && options_.slowCandidateFactor > 0)
    timing.slowRunSeconds = options_.slowCandidateFactor * best->second;
  RunOutcome outcome = [&] {
    ScopedSeconds timed(profile_.run);
    return runner_.run(built, options_.checkCorrectness, timing, options_.runner.timeoutSeconds);
  }();
  if (!outcome.ok()) {
    result.error = std::move(outcome.error);
    result.errorDetail = std::move(outcome.errorDetail);
    return result;
  }
  if (options_.checkCorrectness) {
    const Reference& reference = referenceFor(task);
    if (!reference.error.empty()) {
      result.error = errors::kRuntime;
      result.errorDetail = "no reference output: " + reference.error;
      return result;
    }
    CheckResult check = [&] {
      ScopedSeconds timed(profile_.check);
      return checkAgainstReference(outcome.outputs, reference.outputs);
    }();
    if (!check.ok) {
      result.error = errors::kWrongResult;
      result.errorDetail = std::move(check.detail);
      return result;
    }
  }
  result.costs = std::move(outcome.costs);
  auto [best, inserted] = bestCost_.try_emplace(key, result.meanCost());
  if (!inserted)
    best->second = std::min(best->second, result.meanCost());
  return result;
}

std::vector<MeasureResult> Measurer::measure(const std::vector<MeasureInput>& inputs) {
  std::vector<MeasureInput> planted;
  if (!faults_.empty()) {
    planted = inputs;
    for (MeasureInput& input : planted)
      if (const auto fault = faults_.find(++candidatesMeasured_); fault != faults_.end())
        input.fault = fault->second;
  }
  // The naive kernels of tasks whose reference will be needed are built with the batch, on the
  // same cores, instead of one by one when the first candidate is checked. They run on the CPU
  // whatever the candidates' target.
  std::vector<MeasureInput> toBuild = faults_.empty() ? inputs : std::move(planted);
  std::vector<MeasureInput> naiveToBuild;
  std::vector<std::string> naiveKeys;
  if (options_.checkCorrectness)
    for (const MeasureInput& input : inputs) {
      const std::string key = workloadKey(input.task);
      if (!hasCompiledReference(input.task) || references_.count(key) || naiveBuilds_.count(key) ||
          std::find(naiveKeys.begin(), naiveKeys.end(), key) != naiveKeys.end())
        continue;
      try {
        naiveToBuild.push_back(naiveCandidate(input.task));
        naiveKeys.push_back(key);
      } catch (const std::exception&) {
        // A task that does not lower fails as a candidate; its reference says why later.
      }
    }
  std::vector<BuildResult> built;
  {
    ScopedSeconds timed(profile_.build);
    const BuildTarget candidateTarget =
        options_.gpu ? BuildTarget(*options_.gpu) : BuildTarget(target_);
    if (options_.gpu) {
      built =
          build(toBuild, candidateTarget, options_.buildParallelism, options_.buildTimeoutSeconds);
      std::vector<BuildResult> naive =
          build(naiveToBuild, target_, options_.buildParallelism, options_.buildTimeoutSeconds);
      std::move(naive.begin(), naive.end(), std::back_inserter(built));
    } else {
      toBuild.insert(toBuild.end(), naiveToBuild.begin(), naiveToBuild.end());
      built =
          build(toBuild, candidateTarget, options_.buildParallelism, options_.buildTimeoutSeconds);
    }
  }
  for (std::size_t k = 0; k < naiveKeys.size(); ++k)
    naiveBuilds_[naiveKeys[k]] = std::move(built[inputs.size() + k]);
  std::vector<MeasureResult> results;
  results.reserve(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i)
    results.push_back(measureBuilt(inputs[i].task, built[i]));
  return results;
}

} // namespace clustune::measure
