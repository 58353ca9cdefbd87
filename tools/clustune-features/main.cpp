// clustune-features: exports the program features, costs and splits that clustune's cost
// models train on as NumPy arrays, for models outside clustune (scripts/xgb_baseline.py).
//   clustune-features RECORDS... --tasks tasks.jsonl [--seed S] -o DIR
#include "costmodel/DatasetSplit.h"
#include "costmodel/NumpyExport.h"
#include "costmodel/ProgramDataset.h"
#include "graph/TaskFile.h"
#include "measure/RecordLog.h"
#include "support/ToolMain.h"

#include <iostream>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

using namespace clustune;

int main(int argc, char** argv) {
  CLI::App app{"Export the cost models' program features, costs and splits as NumPy arrays."};
  CommonOptions common;
  std::vector<std::string> recordFiles;
  std::string taskFile, outputDirectory;
  double validationFraction = 0.1;
  app.add_option("records", recordFiles, "records.jsonl files ('-' reads stdin)")->required();
  app.add_option("--tasks", taskFile, "tasks.jsonl the records were measured from")->required();
  app.add_option("-o,--output", outputDirectory, "Directory for the .npy files")->required();
  app.add_option("--validation-fraction", validationFraction,
                 "Share of each task's programs marked in validation.npy, as clustune-train "
                 "splits them with the same --seed")
      ->capture_default_str();
  addCommonOptions(app, common, /*withSeed=*/true);

  return runTool(app, common, argc, argv, [&] {
    if (!(validationFraction >= 0 && validationFraction < 1))
      throw Error("--validation-fraction must be in [0, 1)");
    const std::vector<graph::Task> tasks = graph::readTaskFile(taskFile);
    std::vector<measure::Record> records;
    for (const std::string& file : recordFiles)
      measure::readRecords(file, [&](measure::Record&& record, const ErrorContext&) {
        records.push_back(std::move(record));
      });
    costmodel::DatasetReport report;
    const costmodel::ProgramDataset dataset =
        costmodel::buildProgramDataset(tasks, records, &report);
    std::vector<bool> validation(dataset.programCount(), false);
    for (std::size_t program :
         costmodel::splitWithinTasks(dataset, validationFraction, common.seed).second)
      validation[program] = true;
    costmodel::exportProgramDataset(outputDirectory, dataset, tasks, validation);
    std::cout << nlohmann::ordered_json{{"output", outputDirectory},
                                        {"records", report.records},
                                        {"programs", report.programs},
                                        {"statements", dataset.statements.rows()},
                                        {"tasks", report.tasks},
                                        {"skipped_errors", report.skippedErrors},
                                        {"skipped_unknown_tasks", report.skippedUnknownTasks},
                                        {"skipped_unlowered", report.skippedUnloweredSchedules}}
                     .dump()
              << '\n';
    return 0;
  });
}
