// How programs are divided for training and evaluation: Tenset's within-task validation split
// (a fraction of every task's programs), the leave-one-model-out split (train on the tasks that
// do not occur in a model, evaluate on the model's tasks), and selection by task, which the
// per-cluster models use.
#pragma once

#include "costmodel/ProgramDataset.h"
#include "graph/Task.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace clustune::costmodel {

struct ProgramSplit {
  std::vector<std::size_t> first;  // training programs
  std::vector<std::size_t> second; // validation or evaluation programs
};

// Per task, round(fraction × programs) randomly chosen programs go to the second part; a task
// with fewer than kMinimumProgramsToSplit programs stays whole in the first.
inline constexpr std::size_t kMinimumProgramsToSplit = 10;
ProgramSplit splitWithinTasks(const ProgramDataset& dataset, double fraction, std::uint64_t seed);

// Tasks that occur in `model` (graph::Task::weights) go to the second part, every other task to
// the first. Throws clustune::Error when no task occurs in the model.
ProgramSplit splitByModel(const ProgramDataset& dataset, const std::vector<graph::Task>& tasks,
                          const std::string& model);

// The programs of the tasks in `taskKeys`.
std::vector<std::size_t> programsOfTasks(const ProgramDataset& dataset,
                                         const std::set<std::string>& taskKeys);

} // namespace clustune::costmodel
