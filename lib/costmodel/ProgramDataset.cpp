#include "costmodel/ProgramDataset.h"

#include "costmodel/Labels.h"
#include "runtime/ThreadPool.h"
#include "schedule/Lower.h"
#include "schedule/State.h"
#include "support/Progress.h"
#include "te/LowerTask.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <map>
#include <mutex>
#include <spdlog/spdlog.h>

namespace clustune::costmodel {
namespace {

// One task's share of the dataset, filled by one thread.
struct TaskPrograms {
  std::vector<float> rows; // row-major, kStatementFeatureCount wide
  std::vector<int> statementCounts;
  std::vector<double> costs;
  std::vector<int> targets;
  std::size_t unlowered = 0;
};

TaskPrograms featurizeTask(const graph::Task& task,
                           const std::vector<const measure::Record*>& records,
                           const std::map<std::string, int>& targetNumbers) {
  TaskPrograms programs;
  const te::Workload workload = te::lowerTask(task);
  for (const measure::Record* record : records) {
    nn::Matrix features;
    try {
      const schedule::State state = schedule::replay(workload, record->schedule);
      features = programFeatures(task, schedule::lower(workload, state, "program"));
    } catch (const Error& error) {
      spdlog::debug("task {}: skipping a schedule that no longer lowers: {}", task.key,
                    error.what());
      ++programs.unlowered;
      continue;
    }
    programs.rows.insert(programs.rows.end(), features.data(), features.data() + features.size());
    programs.statementCounts.push_back(static_cast<int>(features.rows()));
    programs.costs.push_back(record->meanCost());
    programs.targets.push_back(targetNumbers.at(record->target));
  }
  return programs;
}

} // namespace

std::vector<float> ProgramDataset::labels() const {
  assert(programTarget.empty() || programTarget.size() == costs.size());
  const std::size_t targetCount =
      programTarget.empty()
          ? 1
          : static_cast<std::size_t>(*std::max_element(programTarget.begin(), programTarget.end()) +
                                     1);
  const auto group = [&](std::size_t program) {
    const auto target =
        programTarget.empty() ? 0 : static_cast<std::size_t>(programTarget[program]);
    return static_cast<std::size_t>(programTask[program]) * targetCount + target;
  };
  std::vector<double> fastest(taskKeys.size() * targetCount, 0.0);
  for (std::size_t program = 0; program < costs.size(); ++program) {
    double& best = fastest[group(program)];
    if (best == 0.0 || costs[program] < best)
      best = costs[program];
  }
  std::vector<float> result(costs.size());
  for (std::size_t program = 0; program < costs.size(); ++program)
    result[program] =
        static_cast<float>(normalisedThroughput(costs[program], fastest[group(program)]));
  return result;
}

std::vector<std::vector<std::size_t>> ProgramDataset::programsByTask() const {
  std::vector<std::vector<std::size_t>> result(taskKeys.size());
  for (std::size_t program = 0; program < costs.size(); ++program)
    result[static_cast<std::size_t>(programTask[program])].push_back(program);
  return result;
}

nn::Matrix programFeatures(const graph::Task& task, const te::LoweredFunction& function) {
  const std::vector<features::StoreFeatures> stores = features::extractProgramFeatures(function);
  const std::array<float, kTaskTagCount> tags = taskTags(task);
  nn::Matrix rows(static_cast<Eigen::Index>(stores.size()),
                  static_cast<Eigen::Index>(kStatementFeatureCount));
  for (std::size_t store = 0; store < stores.size(); ++store) {
    float* row = rows.row(static_cast<Eigen::Index>(store)).data();
    std::copy(stores[store].values.begin(), stores[store].values.end(), row);
    std::copy(tags.begin(), tags.end(), row + features::kProgramFeatureCount);
  }
  return rows;
}

ProgramDataset buildProgramDataset(const std::vector<graph::Task>& tasks,
                                   const std::vector<measure::Record>& records,
                                   DatasetReport* report) {
  DatasetReport counts;
  counts.records = records.size();
  std::map<std::string, std::size_t> taskIndex;
  for (std::size_t index = 0; index < tasks.size(); ++index)
    taskIndex.emplace(tasks[index].key, index);
  std::vector<std::vector<const measure::Record*>> recordsByTask(tasks.size());
  std::map<std::string, int> targetNumbers;
  for (const measure::Record& record : records) {
    if (!record.ok()) {
      ++counts.skippedErrors;
      continue;
    }
    const auto found = taskIndex.find(record.task);
    if (found == taskIndex.end()) {
      ++counts.skippedUnknownTasks;
      continue;
    }
    recordsByTask[found->second].push_back(&record);
    targetNumbers.try_emplace(record.target, static_cast<int>(targetNumbers.size()));
  }

  std::vector<TaskPrograms> perTask(tasks.size());
  std::atomic<std::size_t> nextTask{0};
  std::mutex progressMutex;
  Progress progress("features", tasks.size());
  // Tasks differ a lot in size, so threads claim the next task rather than a fixed share.
  runtime::ThreadPool& pool = runtime::ThreadPool::global();
  pool.parallelFor(pool.threadCount(), [&](std::int64_t, std::int64_t) {
    for (std::size_t task = nextTask++; task < tasks.size(); task = nextTask++) {
      if (!recordsByTask[task].empty())
        perTask[task] = featurizeTask(tasks[task], recordsByTask[task], targetNumbers);
      std::lock_guard lock(progressMutex);
      progress.advance();
    }
  });
  progress.finish();

  ProgramDataset dataset;
  std::size_t totalRows = 0;
  for (const TaskPrograms& programs : perTask)
    totalRows += programs.rows.size() / kStatementFeatureCount;
  dataset.statements.resize(static_cast<Eigen::Index>(totalRows),
                            static_cast<Eigen::Index>(kStatementFeatureCount));
  std::size_t row = 0;
  for (std::size_t task = 0; task < tasks.size(); ++task) {
    TaskPrograms& programs = perTask[task];
    counts.skippedUnloweredSchedules += programs.unlowered;
    if (programs.costs.empty())
      continue;
    const int taskNumber = static_cast<int>(dataset.taskKeys.size());
    dataset.taskKeys.push_back(tasks[task].key);
    std::copy(programs.rows.begin(), programs.rows.end(),
              dataset.statements.data() + row * kStatementFeatureCount);
    row += programs.rows.size() / kStatementFeatureCount;
    for (std::size_t program = 0; program < programs.costs.size(); ++program) {
      dataset.programOffsets.push_back(dataset.programOffsets.back() +
                                       programs.statementCounts[program]);
      dataset.costs.push_back(programs.costs[program]);
      dataset.programTask.push_back(taskNumber);
      if (targetNumbers.size() > 1)
        dataset.programTarget.push_back(programs.targets[program]);
    }
    programs = {};
  }
  counts.programs = dataset.programCount();
  counts.tasks = dataset.taskKeys.size();
  if (report)
    *report = counts;
  return dataset;
}

ProgramDataset selectPrograms(const ProgramDataset& dataset,
                              const std::vector<std::size_t>& indices) {
  ProgramDataset subset;
  std::size_t totalRows = 0;
  for (std::size_t program : indices)
    totalRows += static_cast<std::size_t>(dataset.programOffsets[program + 1] -
                                          dataset.programOffsets[program]);
  subset.statements.resize(static_cast<Eigen::Index>(totalRows), dataset.statements.cols());
  std::map<int, int> renumbered;
  Eigen::Index row = 0;
  for (std::size_t program : indices) {
    const int begin = dataset.programOffsets[program];
    const int count = dataset.programOffsets[program + 1] - begin;
    subset.statements.middleRows(row, count) = dataset.statements.middleRows(begin, count);
    row += count;
    subset.programOffsets.push_back(subset.programOffsets.back() + count);
    subset.costs.push_back(dataset.costs[program]);
    if (!dataset.programTarget.empty())
      subset.programTarget.push_back(dataset.programTarget[program]);
    const int task = dataset.programTask[program];
    auto [entry, inserted] = renumbered.try_emplace(task, static_cast<int>(subset.taskKeys.size()));
    if (inserted)
      subset.taskKeys.push_back(dataset.taskKeys[static_cast<std::size_t>(task)]);
    subset.programTask.push_back(entry->second);
  }
  return subset;
}

} // namespace clustune::costmodel
