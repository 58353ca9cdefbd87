// See Campaign.h.
#include "dataset/Campaign.h"

#include "support/Error.h"
#include "support/Hash.h"
#include "support/Progress.h"
#include "support/Stopwatch.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <limits>
#include <spdlog/spdlog.h>

namespace clustune::dataset {
namespace {

class CampaignRun {
public:
  CampaignRun(measure::Measurer& measurer, measure::RecordAppender& output, MeasuredIndex& index,
              const CampaignOptions& options, std::size_t wantedRecords, int tasksInShard,
              std::int64_t existingRecords)
      : measurer_(measurer), output_(output), index_(index), options_(options),
        progress_("measure", wantedRecords), tasksInShard_(tasksInShard),
        existingRecords_(existingRecords) {
    summary_.tasks = tasksInShard;
  }

  void measureTask(const graph::Task& task);
  // How many more records may be written: 0 once a limit is reached (recorded in the summary).
  std::int64_t recordsAllowed() {
    if (options_.timeBudgetSeconds > 0 && elapsedSeconds() >= options_.timeBudgetSeconds) {
      summary_.stoppedBy = "time_budget";
      return 0;
    }
    if (options_.maxRecords <= 0)
      return std::numeric_limits<std::int64_t>::max();
    const std::int64_t left = options_.maxRecords - existingRecords_ - summary_.records;
    if (left <= 0)
      summary_.stoppedBy = "max_records";
    return std::max<std::int64_t>(0, left);
  }
  void taskDone() {
    ++tasksDone_;
    showProgress();
  }
  CampaignSummary finish() {
    progress_.finish();
    summary_.seconds = elapsedSeconds();
    return std::move(summary_);
  }

private:
  double elapsedSeconds() const { return secondsSince(start_); }
  // Measures the candidates at `positions` of `candidates` and appends their records.
  void measureBatch(const graph::Task& task, std::uint64_t seed,
                    const std::vector<std::vector<schedule::Step>>& candidates,
                    const std::vector<std::size_t>& positions, TaskProgress& progress);
  void showProgress();

  measure::Measurer& measurer_;
  measure::RecordAppender& output_;
  MeasuredIndex& index_;
  const CampaignOptions& options_;
  Progress progress_;
  int tasksInShard_;
  int tasksDone_ = 0;
  std::int64_t existingRecords_;
  CampaignSummary summary_;
  SteadyClock::time_point start_ = SteadyClock::now();
};

void CampaignRun::showProgress() {
  const double seconds = std::max(elapsedSeconds(), 1e-9);
  const double errorRate =
      summary_.records == 0
          ? 0.0
          : 100.0 * static_cast<double>(summary_.records - summary_.valid) / summary_.records;
  progress_.setDetail(fmt::format("tasks {}/{}, {:.1f} records/s, errors {:.1f}%", tasksDone_,
                                  tasksInShard_, static_cast<double>(summary_.records) / seconds,
                                  errorRate));
  progress_.advance(0);
}

void CampaignRun::measureBatch(const graph::Task& task, std::uint64_t seed,
                               const std::vector<std::vector<schedule::Step>>& candidates,
                               const std::vector<std::size_t>& positions, TaskProgress& progress) {
  std::vector<measure::MeasureInput> inputs;
  inputs.reserve(positions.size());
  for (std::size_t position : positions)
    inputs.push_back({.task = task, .steps = candidates[position]});
  const std::vector<measure::MeasureResult> results = measurer_.measure(inputs);
  for (std::size_t i = 0; i < results.size(); ++i) {
    measure::Record record =
        measure::makeRecord(task.key, options_.target, inputs[i].steps, results[i]);
    record.sampleSeed = seed;
    record.sampleIndex = static_cast<int>(positions[i]);
    if (appendMeasured(record, results[i].compileSeconds, output_, progress, summary_))
      progress_.advance(1);
    else
      spdlog::debug("task {} candidate {}: {}: {}", task.key, positions[i], record.error,
                    record.errorDetail);
  }
  showProgress();
}

void CampaignRun::measureTask(const graph::Task& task) {
  TaskProgress& progress = index_[task.key];
  const int perTask = options_.perTask;
  const std::uint64_t seed = taskSampleSeed(options_.seed, task.key);
  const int candidateCap = perTask * std::max(1, options_.maxCandidatesFactor);
  int listLength = perTask;
  std::size_t next = 0;
  while (progress.valid < perTask) {
    std::vector<std::vector<schedule::Step>> candidates;
    try {
      candidates = search::sample(task, listLength, seed, options_.sampling);
    } catch (const Error& error) {
      spdlog::warn("task {} ({}): skipped, it cannot be sampled: {}", task.key, task.anchor,
                   error.message());
      ++summary_.tasksSkipped;
      return;
    }
    while (next < candidates.size() && progress.valid < perTask) {
      const std::int64_t allowed = recordsAllowed();
      if (allowed == 0)
        return;
      // Only as many as could still be needed, assuming each turns out valid.
      const std::size_t room = static_cast<std::size_t>(
          std::min<std::int64_t>(allowed, std::min(options_.batchSize, perTask - progress.valid)));
      std::vector<std::size_t> positions;
      for (; next < candidates.size() && positions.size() < room; ++next)
        if (!progress.measured.contains(schedule::scheduleText(candidates[next])))
          positions.push_back(next);
      if (!positions.empty())
        measureBatch(task, seed, candidates, positions, progress);
    }
    if (progress.valid >= perTask)
      break;
    if (static_cast<int>(candidates.size()) < listLength || listLength >= candidateCap) {
      spdlog::info("task {} ({}): {} valid records; its space{} holds no more candidates", task.key,
                   task.anchor, progress.valid,
                   listLength >= candidateCap ? " (up to the candidate cap)" : "");
      ++summary_.tasksExhausted;
      return;
    }
    listLength = std::min(listLength * 2, candidateCap);
  }
  ++summary_.tasksComplete;
}

} // namespace

bool appendMeasured(const measure::Record& record, double compileSeconds,
                    measure::RecordAppender& output, TaskProgress& progress,
                    CampaignSummary& summary) {
  output.append(record);
  progress.measured.insert(schedule::scheduleText(record.schedule));
  ++summary.records;
  if (compileSeconds > 0)
    summary.compileSeconds.push_back(compileSeconds);
  if (!record.ok()) {
    ++summary.errors[record.error];
    return false;
  }
  ++progress.valid;
  ++summary.valid;
  return true;
}

std::uint64_t taskSampleSeed(std::uint64_t campaignSeed, const std::string& taskKey) {
  StableHasher hasher;
  hasher.add(static_cast<std::int64_t>(campaignSeed));
  hasher.add(taskKey);
  return hasher.finish();
}

MeasuredIndex indexRecords(const std::string& path) {
  MeasuredIndex index;
  if (path == "-" || !std::filesystem::exists(path))
    return index;
  measure::readRecords(path, [&](measure::Record&& record, const ErrorContext&) {
    TaskProgress& progress = index[record.task];
    progress.measured.insert(schedule::scheduleText(record.schedule));
    if (record.ok())
      ++progress.valid;
  });
  return index;
}

CampaignSummary runCampaign(const std::vector<graph::Task>& tasks, measure::Measurer& measurer,
                            measure::RecordAppender& output, MeasuredIndex& index,
                            const CampaignOptions& options) {
  if (options.perTask < 1)
    throw Error("the number of valid records per task must be at least 1, got " +
                std::to_string(options.perTask));
  if (options.batchSize < 1)
    throw Error("the batch size must be at least 1, got " + std::to_string(options.batchSize));
  std::size_t wanted = 0;
  int tasksInShard = 0;
  std::int64_t existingRecords = 0;
  for (const auto& [key, progress] : index)
    existingRecords += static_cast<std::int64_t>(progress.measured.size());
  for (std::size_t position = 0; position < tasks.size(); ++position) {
    if (!options.shard.contains(position))
      continue;
    ++tasksInShard;
    auto found = index.find(tasks[position].key);
    const int valid = found == index.end() ? 0 : found->second.valid;
    wanted += static_cast<std::size_t>(std::max(0, options.perTask - valid));
  }
  CampaignRun run(measurer, output, index, options, wanted, tasksInShard, existingRecords);
  for (std::size_t position = 0; position < tasks.size(); ++position) {
    if (!options.shard.contains(position))
      continue;
    if (run.recordsAllowed() == 0)
      break;
    run.measureTask(tasks[position]);
    run.taskDone();
    // Each task's reference outputs are needed only while it is measured.
    measurer.forgetReferences();
  }
  return run.finish();
}

} // namespace clustune::dataset
