// The cost models' view of measured records: every valid record becomes a program, the feature
// rows of its statements (Ansor's per-store features followed by the task's tags), its mean cost
// and its task. Programs are stored contiguously in one matrix, so that a training batch is a
// gather of row ranges and the segment sum needs only offsets.
#pragma once

#include "costmodel/TaskTags.h"
#include "features/ProgramFeatures.h"
#include "graph/Task.h"
#include "measure/Record.h"
#include "nn/Parameter.h"

#include <cstddef>
#include <string>
#include <vector>

namespace clustune::costmodel {

inline constexpr std::size_t kStatementFeatureCount =
    features::kProgramFeatureCount + kTaskTagCount;

struct ProgramDataset {
  nn::Matrix statements = {};             // one row per statement, kStatementFeatureCount wide
  std::vector<int> programOffsets = {0};  // program p owns rows [offsets[p], offsets[p + 1])
  std::vector<double> costs = {};         // mean measured cost per program, seconds
  std::vector<int> programTask = {};      // index into taskKeys per program
  std::vector<std::string> taskKeys = {}; // the tasks that have at least one program
  // Per program, which of the records' targets (machines) measured it, numbered from 0; empty
  // when one target measured them all. Seconds of two machines are not one scale.
  std::vector<int> programTarget = {};

  std::size_t programCount() const { return costs.size(); }
  // Normalised throughput per program: the fastest cost of its task on its target in this
  // dataset over its own cost (Labels.h).
  std::vector<float> labels() const;
  // The programs of each task, by task index.
  std::vector<std::vector<std::size_t>> programsByTask() const;
};

// What became of the records handed to buildProgramDataset.
struct DatasetReport {
  std::size_t records = 0;
  std::size_t programs = 0;
  std::size_t skippedErrors = 0;             // records of failed measurements
  std::size_t skippedUnknownTasks = 0;       // records whose task is not in the task file
  std::size_t skippedUnloweredSchedules = 0; // schedules that no longer replay or lower
  std::size_t tasks = 0;
};

// Replays and lowers every valid record's schedule and extracts its features, in parallel over
// tasks (each task is lowered once). Programs come out grouped by task, tasks in the order of
// `tasks`, records in file order, whatever the thread count.
ProgramDataset buildProgramDataset(const std::vector<graph::Task>& tasks,
                                   const std::vector<measure::Record>& records,
                                   DatasetReport* report = nullptr);

// The feature rows of one program, as buildProgramDataset computes them: what a tuner scores.
nn::Matrix programFeatures(const graph::Task& task, const te::LoweredFunction& function);

// The programs at `indices`, in that order, with tasks renumbered to those that remain.
ProgramDataset selectPrograms(const ProgramDataset& dataset,
                              const std::vector<std::size_t>& indices);

} // namespace clustune::costmodel
