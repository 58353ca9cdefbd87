// Reading a tuning log (records.jsonl, docs/formats.md): for each workload key, the schedule of
// its fastest valid record. clustune-run compiles tasks with these schedules and falls back to
// the default schedule for tasks the log does not cover.
#pragma once

#include "schedule/Step.h"

#include <map>
#include <string>
#include <vector>

namespace clustune::executor {

struct BestRecord {
  std::vector<schedule::Step> steps;
  double seconds = 0.0; // mean of the record's costs
};

// Records with an error, or without costs, are skipped. A malformed line or an invalid
// schedule raises clustune::Error naming the file and line.
std::map<std::string, BestRecord> readBestSchedules(const std::string& path);

} // namespace clustune::executor
