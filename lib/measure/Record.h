// One measured schedule as records.jsonl stores it (DESIGN §8, docs/formats.md): the task's
// workload key, the target it ran on, the schedule steps and either the timed costs or the
// error kind. Records are the dataset the cost models learn from and the tuning log that
// clustune-run and the tuner read back, so the JSON form is spelled here once, with a field
// order that makes equal records serialise to equal lines.
#pragma once

#include "measure/MeasureInput.h"
#include "schedule/Step.h"
#include "support/Error.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace clustune::measure {

inline constexpr int kRecordVersion = 1;

struct Record {
  std::string task = {};   // workload key
  std::string target = {}; // e.g. "llvm -mcpu=znver5 -cores=2"
  std::vector<schedule::Step> schedule = {};
  std::vector<double> costs = {}; // seconds, the mean of each repeat; empty with an error
  std::string error = {};         // "" or one of errors::*
  std::string errorDetail = {};
  double compileSeconds = 0;
  // How the schedule was drawn: search::sample's seed and the candidate's position in its list
  // (-1 when the schedule did not come from sampling, e.g. a default or hand-written one).
  std::uint64_t sampleSeed = 0;
  int sampleIndex = -1;
  // In a tuning log (clustune-tune): the round that measured the record (0: the default
  // schedules measured before the search) and the tuner's elapsed seconds when it was written,
  // counted over every run of the log; -1 when the record did not come from the tuner.
  int tuneRound = -1;
  double tuneSeconds = -1;

  bool ok() const { return error.empty() && !costs.empty(); }
  double meanCost() const; // 0 without costs
};

// The measurement of one candidate as a record.
Record makeRecord(const std::string& taskKey, const std::string& target,
                  const std::vector<schedule::Step>& steps, const MeasureResult& result);

// Fields in the order of docs/formats.md; "error" and "error_detail" are null for a valid record,
// and the tuning fields appear only on records of a tuning log.
nlohmann::ordered_json recordToJson(const Record& record);
// Validates every field (an unknown error kind, a non-positive cost, costs on an error record,
// a malformed schedule) and throws clustune::Error with `context` (file and line).
Record recordFromJson(const nlohmann::json& entry, const ErrorContext& context);

} // namespace clustune::measure
