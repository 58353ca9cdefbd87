// What a tuning run measured, as its learned cost models learn from it: each valid measurement
// as a program (its statements' feature rows, its cost, its task), gathered into a
// costmodel::ProgramDataset for training, whose labels are normalised within each task
// (Labels.h) by the fastest cost the run has measured for it.
#pragma once

#include "costmodel/ProgramDataset.h"
#include "search/CostModel.h"

#include <functional>
#include <span>
#include <string>
#include <vector>

namespace clustune::tune {

class MeasuredPrograms {
public:
  // Featurises and keeps every measurement.
  void add(std::span<const search::Measurement> measurements);

  // The programs of the tasks `selected` accepts (every task when it is empty).
  costmodel::ProgramDataset
  dataset(const std::function<bool(const std::string& taskKey)>& selected = {}) const;

  std::size_t size() const { return costs_.size(); }

private:
  std::vector<nn::Matrix> rows_;
  std::vector<double> costs_;
  std::vector<std::string> taskKeys_;
};

} // namespace clustune::tune
