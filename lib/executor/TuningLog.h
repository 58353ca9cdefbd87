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

// Records with an error, or without costs, are skipped, and so are those measured for the
// other kind of target: with `gpu`, only records whose target is "cuda ..."; without, only the
// others (a CPU schedule does not compile for a GPU, nor the reverse). A malformed line or an
// invalid schedule raises clustune::Error naming the file and line.
std::map<std::string, BestRecord> readBestSchedules(const std::string& path, bool gpu = false);

} // namespace clustune::executor
