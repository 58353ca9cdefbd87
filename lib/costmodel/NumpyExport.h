// Writes a program dataset as NumPy arrays, so that peers outside clustune (XGBoost in
// scripts/xgb_baseline.py) train and evaluate on exactly the features, labels and splits that
// clustune's own models see. The .npy format (version 1.0) is simple enough to write directly.
#pragma once

#include "costmodel/ProgramDataset.h"
#include "graph/Task.h"

#include <string>
#include <vector>

namespace clustune::costmodel {

// Writes into `directory`: statements.npy (float32, rows × 173), program_offsets.npy (int64,
// programs + 1), costs.npy (float64), program_task.npy (int32, index into tasks.json's keys),
// validation.npy (bool: the within-task validation split clustune-train would use with this
// seed and fraction) and tasks.json ({"keys": [...], "weights": {key: {model: occurrences}}}).
void exportProgramDataset(const std::string& directory, const ProgramDataset& dataset,
                          const std::vector<graph::Task>& tasks,
                          const std::vector<bool>& validation);

} // namespace clustune::costmodel
