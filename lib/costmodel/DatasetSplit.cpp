#include "costmodel/DatasetSplit.h"

#include "support/Error.h"
#include "support/Hash.h"
#include "support/Random.h"

#include <algorithm>
#include <cmath>

namespace clustune::costmodel {

ProgramSplit splitWithinTasks(const ProgramDataset& dataset, double fraction, std::uint64_t seed) {
  ProgramSplit split;
  const Rng root(seed);
  const std::vector<std::vector<std::size_t>> byTask = dataset.programsByTask();
  for (std::size_t task = 0; task < byTask.size(); ++task) {
    std::vector<std::size_t> programs = byTask[task];
    std::size_t held = 0;
    if (programs.size() >= kMinimumProgramsToSplit)
      held = static_cast<std::size_t>(std::lround(fraction * static_cast<double>(programs.size())));
    // A stream per task, so a task's split does not depend on which other tasks are present;
    // keyed by the stable hash, so it is the same with every standard library.
    Rng rng = root.fork(stableHash(dataset.taskKeys[task]));
    rng.shuffle(programs);
    split.second.insert(split.second.end(), programs.begin(), programs.begin() + held);
    split.first.insert(split.first.end(), programs.begin() + held, programs.end());
  }
  std::sort(split.first.begin(), split.first.end());
  std::sort(split.second.begin(), split.second.end());
  return split;
}

ProgramSplit splitByModel(const ProgramDataset& dataset, const std::vector<graph::Task>& tasks,
                          const std::string& model) {
  std::set<std::string> inModel;
  for (const graph::Task& task : tasks)
    if (task.weights.count(model))
      inModel.insert(task.key);
  if (inModel.empty())
    throw Error("no task occurs in model '" + model + "' (see the \"weights\" of tasks.jsonl)");
  ProgramSplit split;
  for (std::size_t program = 0; program < dataset.programCount(); ++program) {
    const std::string& key =
        dataset.taskKeys[static_cast<std::size_t>(dataset.programTask[program])];
    (inModel.count(key) ? split.second : split.first).push_back(program);
  }
  return split;
}

std::vector<std::size_t> programsOfTasks(const ProgramDataset& dataset,
                                         const std::set<std::string>& taskKeys) {
  std::vector<std::size_t> programs;
  for (std::size_t program = 0; program < dataset.programCount(); ++program)
    if (taskKeys.count(dataset.taskKeys[static_cast<std::size_t>(dataset.programTask[program])]))
      programs.push_back(program);
  return programs;
}

} // namespace clustune::costmodel
