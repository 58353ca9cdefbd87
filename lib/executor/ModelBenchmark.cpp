// See ModelBenchmark.h.
#include "executor/ModelBenchmark.h"

#include "support/Statistics.h"
#include "support/Stopwatch.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace clustune::executor {

namespace {

// Per task: per run, the sum over its occurrences; then the median over runs. Slowest first.
std::vector<TaskTime> taskTimes(const std::vector<graph::TaskOccurrence>& occurrences,
                                const std::vector<graph::Task>& tasks,
                                const std::vector<std::vector<double>>& occurrenceSamples,
                                int repeat) {
  std::map<std::string, TaskTime> byKey;
  std::map<std::string, std::vector<double>> perRun;
  for (std::size_t i = 0; i < occurrences.size(); ++i) {
    const std::string& key = occurrences[i].key;
    TaskTime& time = byKey[key];
    time.key = key;
    time.anchor = tasks[i].anchor;
    ++time.occurrences;
    auto& sums = perRun[key];
    sums.resize(static_cast<std::size_t>(repeat), 0.0);
    for (int run = 0; run < repeat; ++run)
      sums[run] += occurrenceSamples[i][run];
  }
  std::vector<TaskTime> times;
  for (auto& [key, time] : byKey) {
    time.medianSeconds = median(perRun[key]);
    times.push_back(time);
  }
  std::sort(times.begin(), times.end(),
            [](const TaskTime& a, const TaskTime& b) { return a.medianSeconds > b.medianSeconds; });
  return times;
}

} // namespace

LatencyReport measureLatency(const ModelExecutor& executor,
                             const std::vector<te::TensorData>& inputs, int repeat, bool perTask) {
  LatencyReport report;
  executor.run(inputs); // warm-up: caches, page faults, thread-pool start
  std::vector<std::vector<double>> occurrenceSamples(executor.occurrences().size());
  std::vector<double> occurrenceSeconds;
  for (int run = 0; run < repeat; ++run) {
    const auto start = SteadyClock::now();
    executor.run(inputs, perTask ? &occurrenceSeconds : nullptr);
    report.runSeconds.push_back(secondsSince(start));
    for (std::size_t i = 0; perTask && i < occurrenceSeconds.size(); ++i)
      occurrenceSamples[i].push_back(occurrenceSeconds[i]);
  }
  report.medianSeconds = median(report.runSeconds);
  report.p90Seconds = quantile(report.runSeconds, 0.9);
  if (perTask)
    report.tasks = taskTimes(executor.occurrences(), executor.tasks(), occurrenceSamples, repeat);
  return report;
}

LatencyReport measureGpuLatency(GpuModelExecutor& executor,
                                const std::vector<te::TensorData>& inputs, int repeat,
                                bool perTask) {
  LatencyReport report;
  executor.run(inputs); // warm-up, and the inputs onto the device
  for (int run = 0; run < repeat; ++run)
    report.runSeconds.push_back(executor.timeForward());
  report.medianSeconds = median(report.runSeconds);
  report.p90Seconds = quantile(report.runSeconds, 0.9);
  if (!perTask)
    return report;
  std::vector<std::vector<double>> occurrenceSamples(executor.occurrences().size());
  for (int run = 0; run < repeat; ++run) {
    const std::vector<double> seconds = executor.timeOccurrences();
    for (std::size_t i = 0; i < seconds.size(); ++i)
      occurrenceSamples[i].push_back(seconds[i]);
  }
  report.tasks = taskTimes(executor.occurrences(), executor.tasks(), occurrenceSamples, repeat);
  return report;
}

OutputComparison compareOutputs(const std::vector<te::TensorData>& actual,
                                const std::vector<te::TensorData>& reference) {
  OutputComparison comparison;
  for (std::size_t output = 0; output < reference.size() && output < actual.size(); ++output) {
    const te::TensorData& a = actual[output];
    const te::TensorData& r = reference[output];
    if (a.shape() != r.shape() || a.dtype() != r.dtype()) {
      comparison.withinTolerance = false;
      comparison.firstMismatch = "output " + std::to_string(output) + " has another shape or dtype";
      continue;
    }
    for (std::int64_t i = 0; i < r.elements(); ++i) {
      const double x = a.get(i), y = r.get(i);
      if (std::isnan(x) && std::isnan(y))
        continue;
      const double error = std::isnan(x) || std::isnan(y) ? INFINITY : std::fabs(x - y);
      comparison.maxAbsoluteError = std::max(comparison.maxAbsoluteError, error);
      comparison.maxRelativeError =
          std::max(comparison.maxRelativeError, error / std::max(std::fabs(y), 1e-6));
      if (!(error <= 1e-4 + 1e-3 * std::fabs(y)) && comparison.withinTolerance) {
        comparison.withinTolerance = false;
        comparison.firstMismatch = "output " + std::to_string(output) + " element " +
                                   std::to_string(i) + ": " + std::to_string(x) + " vs " +
                                   std::to_string(y);
      }
    }
  }
  if (actual.size() != reference.size()) {
    comparison.withinTolerance = false;
    comparison.firstMismatch = "different numbers of outputs";
  }
  return comparison;
}

} // namespace clustune::executor
