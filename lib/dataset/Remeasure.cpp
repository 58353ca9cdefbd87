// See Remeasure.h.
#include "dataset/Remeasure.h"

#include "support/Error.h"
#include "support/Progress.h"

#include <chrono>
#include <fmt/format.h>
#include <set>
#include <spdlog/spdlog.h>

namespace clustune::dataset {

CampaignSummary remeasureSchedules(const std::vector<graph::Task>& tasks,
                                   const std::vector<measure::Record>& schedules,
                                   measure::Measurer& measurer, measure::RecordAppender& output,
                                   MeasuredIndex& index, const RemeasureOptions& options) {
  if (options.batchSize < 1)
    throw Error("the batch size must be at least 1, got " + std::to_string(options.batchSize));
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::map<std::string, std::vector<const measure::Record*>> byTask;
  for (const measure::Record& record : schedules)
    byTask[record.task].push_back(&record);
  std::set<std::string> known;
  for (const graph::Task& task : tasks)
    known.insert(task.key);

  CampaignSummary summary;
  for (const auto& [key, records] : byTask)
    if (!known.contains(key)) {
      spdlog::warn("{} schedule(s) of task {} skipped: it is not in the tasks file", records.size(),
                   key);
      ++summary.tasksSkipped;
    }
  std::size_t wanted = 0;
  for (const graph::Task& task : tasks)
    if (auto found = byTask.find(task.key); found != byTask.end())
      wanted += found->second.size();
  Progress progress("measure", wanted);

  for (const graph::Task& task : tasks) {
    auto found = byTask.find(task.key);
    if (found == byTask.end())
      continue;
    ++summary.tasks;
    TaskProgress& measured = index[task.key];
    std::vector<const measure::Record*> pending;
    for (const measure::Record* record : found->second)
      if (!measured.measured.contains(schedule::scheduleText(record->schedule)))
        pending.push_back(record);
      else
        progress.advance(1);
    for (std::size_t first = 0; first < pending.size();
         first += static_cast<std::size_t>(options.batchSize)) {
      if (options.timeBudgetSeconds > 0 && elapsed() >= options.timeBudgetSeconds) {
        summary.stoppedBy = "time_budget";
        break;
      }
      const std::size_t last =
          std::min(pending.size(), first + static_cast<std::size_t>(options.batchSize));
      std::vector<measure::MeasureInput> inputs;
      for (std::size_t i = first; i < last; ++i)
        inputs.push_back({.task = task, .steps = pending[i]->schedule});
      const std::vector<measure::MeasureResult> results = measurer.measure(inputs);
      for (std::size_t i = 0; i < results.size(); ++i) {
        measure::Record record =
            measure::makeRecord(task.key, options.target, inputs[i].steps, results[i]);
        record.sampleSeed = pending[first + i]->sampleSeed;
        record.sampleIndex = pending[first + i]->sampleIndex;
        if (!appendMeasured(record, results[i].compileSeconds, output, measured, summary))
          spdlog::debug("task {}: {}: {}", task.key, record.error, record.errorDetail);
      }
      progress.setDetail(fmt::format("task {}/{}", summary.tasks, byTask.size()));
      progress.advance(results.size());
    }
    if (!summary.stoppedBy.empty())
      break;
    ++summary.tasksComplete;
    measurer.forgetReferences();
  }
  progress.finish();
  summary.seconds = elapsed();
  return summary;
}

} // namespace clustune::dataset
