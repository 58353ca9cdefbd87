// See MeasuredPrograms.h.
#include "tune/MeasuredPrograms.h"

#include "tune/CandidateFeatures.h"

#include <map>

namespace clustune::tune {

void MeasuredPrograms::add(std::span<const search::Measurement> measurements) {
  // One featurisation per task, so each batch runs on the thread pool.
  std::map<const graph::Task*, std::vector<const search::Measurement*>> byTask;
  for (const search::Measurement& measurement : measurements)
    byTask[measurement.task].push_back(&measurement);
  for (const auto& [task, taskMeasurements] : byTask) {
    std::vector<const search::Candidate*> candidates;
    for (const search::Measurement* measurement : taskMeasurements)
      candidates.push_back(measurement->candidate);
    const FeatureBatch batch = featurize(*task, candidates);
    for (std::size_t index = 0; index < taskMeasurements.size(); ++index) {
      const int begin = batch.offsets[index];
      rows_.push_back(batch.statements.middleRows(begin, batch.offsets[index + 1] - begin));
      costs_.push_back(taskMeasurements[index]->seconds);
      taskKeys_.push_back(task->key);
    }
  }
}

costmodel::ProgramDataset
MeasuredPrograms::dataset(const std::function<bool(const std::string&)>& selected) const {
  std::vector<std::size_t> chosen;
  Eigen::Index totalRows = 0;
  for (std::size_t program = 0; program < costs_.size(); ++program)
    if (!selected || selected(taskKeys_[program])) {
      chosen.push_back(program);
      totalRows += rows_[program].rows();
    }
  costmodel::ProgramDataset dataset;
  dataset.statements.resize(totalRows,
                            static_cast<Eigen::Index>(costmodel::kStatementFeatureCount));
  std::map<std::string, int> taskIndex;
  for (std::size_t program : chosen) {
    const int begin = dataset.programOffsets.back();
    dataset.statements.middleRows(begin, rows_[program].rows()) = rows_[program];
    dataset.programOffsets.push_back(begin + static_cast<int>(rows_[program].rows()));
    dataset.costs.push_back(costs_[program]);
    const auto [found, inserted] =
        taskIndex.emplace(taskKeys_[program], static_cast<int>(dataset.taskKeys.size()));
    if (inserted)
      dataset.taskKeys.push_back(taskKeys_[program]);
    dataset.programTask.push_back(found->second);
  }
  return dataset;
}

} // namespace clustune::tune
