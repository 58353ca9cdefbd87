// See Measurer.h.
#include "measure/Measurer.h"

#include "measure/Correctness.h"
#include "schedule/NaiveSchedule.h"
#include "support/Error.h"
#include "support/Stopwatch.h"
#include "te/LowerTask.h"

#include <algorithm>
#include <iterator>
#include <limits>
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

bool screeningRunIsTheMeasurement(double runSeconds, double bestSeconds, double factor,
                                  double minRepeatSeconds) {
  return factor > 0 && runSeconds > factor * bestSeconds &&
         runSeconds >= std::max(minRepeatSeconds, kWarmUpIsAMeasurementSeconds);
}

void checkTimingForTarget(const TimingOptions& timing, bool gpu) {
  // The GPU worker times with its own clock and flush; it has no weights to evict that way.
  if (gpu && timing.coldWeights)
    throw Error("cold-weight timing (--cold-weights) evicts weights from a CPU's caches; a CUDA "
                "target has none to evict that way (use --cache-flush)");
}

Measurer::Measurer(codegen::CpuTarget target, MeasureOptions options)
    : target_(std::move(target)), options_(std::move(options)), runner_(options_.runner),
      faults_(measureFaultsFromEnvironment()) {
  checkTimingForTarget(options_.runner.timing, options_.gpu.has_value());
}

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

MeasureResult Measurer::runBuilt(const graph::Task& task, const BuildResult& built,
                                 const TimingOptions& timing, bool check) {
  MeasureResult result{.compileSeconds = built.compileSeconds};
  if (!built.ok()) {
    result.error = built.error;
    result.errorDetail = built.errorDetail;
    return result;
  }
  RunOutcome outcome = [&] {
    ScopedSeconds timed(profile_.run);
    return runner_.run(built, check, timing, options_.runner.timeoutSeconds);
  }();
  if (!outcome.ok()) {
    result.error = std::move(outcome.error);
    result.errorDetail = std::move(outcome.errorDetail);
    return result;
  }
  if (check) {
    const Reference& reference = referenceFor(task);
    if (!reference.error.empty()) {
      result.error = errors::kRuntime;
      result.errorDetail = "no reference output: " + reference.error;
      return result;
    }
    CheckResult checked = [&] {
      ScopedSeconds timed(profile_.check);
      return checkAgainstReference(outcome.outputs, reference.outputs);
    }();
    if (!checked.ok) {
      result.error = errors::kWrongResult;
      result.errorDetail = std::move(checked.detail);
      return result;
    }
  }
  result.costs = std::move(outcome.costs);
  return result;
}

void Measurer::noteCost(const std::string& key, const MeasureResult& result) {
  if (!result.ok())
    return;
  auto [best, inserted] = bestCost_.try_emplace(key, result.meanCost());
  if (!inserted)
    best->second = std::min(best->second, result.meanCost());
}

MeasureResult Measurer::measureBuilt(const graph::Task& task, const BuildResult& built) {
  const std::string key = workloadKey(task);
  TimingOptions timing = options_.runner.timing;
  if (auto best = bestCost_.find(key); best != bestCost_.end() && options_.slowCandidateFactor > 0)
    timing.slowRunSeconds = options_.slowCandidateFactor * best->second;
  MeasureResult result = runBuilt(task, built, timing, options_.checkCorrectness);
  noteCost(key, result);
  return result;
}

std::vector<MeasureResult> Measurer::measureScreened(const std::vector<MeasureInput>& inputs,
                                                     const std::vector<BuildResult>& built) {
  // Screening: one run of each candidate (its warm-up, or one timed run after it where the
  // warm-up was too short to be a measurement), checked, before any is timed in full. In sample
  // order a slow candidate was judged against the best of those that happened to run before it;
  // here it is judged against its whole batch, and a hopeless one whose screening run is itself
  // a measurement is done. A throughput run timed a quarter of its candidates in full that were
  // over three times their batch's best (docs/throughput.md).
  TimingOptions screening = options_.runner.timing;
  screening.number = 1;
  screening.repeat = 1;
  screening.minRepeatMs = 0;
  screening.slowRunSeconds = std::numeric_limits<double>::min();
  std::vector<MeasureResult> screened;
  screened.reserve(inputs.size());
  std::map<std::string, double> batchBest;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    screened.push_back(runBuilt(inputs[i].task, built[i], screening, options_.checkCorrectness));
    if (!screened.back().ok())
      continue;
    auto [best, inserted] =
        batchBest.try_emplace(workloadKey(inputs[i].task), screened.back().meanCost());
    if (!inserted)
      best->second = std::min(best->second, screened.back().meanCost());
  }
  const double minRepeatSeconds = options_.runner.timing.minRepeatMs / 1000.0;
  std::vector<MeasureResult> results;
  results.reserve(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::string key = workloadKey(inputs[i].task);
    if (!screened[i].ok()) {
      results.push_back(std::move(screened[i]));
      continue;
    }
    double best = batchBest.at(key);
    if (auto earlier = bestCost_.find(key); earlier != bestCost_.end())
      best = std::min(best, earlier->second);
    const double firstRun = screened[i].meanCost();
    if (screeningRunIsTheMeasurement(firstRun, best, options_.slowCandidateFactor,
                                     minRepeatSeconds)) {
      results.push_back(std::move(screened[i]));
    } else {
      // The screening run decides, not the warm-up of this second load: a first call of a
      // microsecond kernel costs many times its run and would make the batch's best hopeless.
      TimingOptions timing = options_.runner.timing;
      timing.slowRunSeconds = 0;
      if (firstRun > options_.slowCandidateFactor * best)
        timing.repeat = 1;
      // The outputs were checked by the screening run; the kernel is deterministic.
      results.push_back(runBuilt(inputs[i].task, built[i], timing, false));
    }
    noteCost(key, results.back());
  }
  return results;
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
  if (options_.slowCandidateFactor > 0)
    return measureScreened(inputs, built);
  std::vector<MeasureResult> results;
  results.reserve(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i)
    results.push_back(measureBuilt(inputs[i].task, built[i]));
  return results;
}

} // namespace clustune::measure
