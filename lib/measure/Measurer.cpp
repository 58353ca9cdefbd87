// See Measurer.h.
#include "measure/Measurer.h"

#include "measure/Correctness.h"
#include "support/Error.h"

#include <spdlog/spdlog.h>

namespace clustune::measure {

Measurer::Measurer(codegen::CpuTarget target, MeasureOptions options)
    : target_(std::move(target)), options_(std::move(options)), runner_(options_.runner),
      faults_(measureFaultsFromEnvironment()) {}

const Measurer::Reference& Measurer::referenceFor(const graph::Task& task) {
  const std::string key = task.key.empty() ? graph::computeTaskKey(task) : task.key;
  auto found = references_.find(key);
  if (found != references_.end())
    return found->second;
  Reference reference;
  const bool large = options_.interpreterReferenceMaxFlops > 0 &&
                     task.flops > options_.interpreterReferenceMaxFlops;
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

std::optional<std::vector<te::TensorData>> Measurer::compiledNaiveOutputs(const graph::Task& task,
                                                                          std::string& why) {
  const BuildResult built = buildCandidate({.task = task, .steps = {}}, target_);
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
  RunOutcome outcome = runner_.run(built, options_.checkCorrectness);
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
    if (CheckResult check = checkAgainstReference(outcome.outputs, reference.outputs); !check.ok) {
      result.error = errors::kWrongResult;
      result.errorDetail = std::move(check.detail);
      return result;
    }
  }
  result.costs = std::move(outcome.costs);
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
  const std::vector<BuildResult> built =
      build(faults_.empty() ? inputs : planted, target_, options_.buildParallelism,
            options_.buildTimeoutSeconds);
  std::vector<MeasureResult> results;
  results.reserve(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i)
    results.push_back(measureBuilt(inputs[i].task, built[i]));
  return results;
}

} // namespace clustune::measure
