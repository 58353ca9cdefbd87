// Reading a tuning log (records.jsonl, docs/formats.md): for each workload key, the schedule of
// its fastest valid record. clustune-run compiles tasks with these schedules and falls back to
// the default schedule for tasks the log does not cover.
#pragma once

#include "schedule/Step.h"

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
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

// A tuning log's best schedules as the kernel factories' lookup, remembering which workload
// keys it answered and which it could not. A log made with another --layout, batch size or
// model answers none of a model's tasks, and a run must say so instead of running untuned.
class ScheduleCoverage {
public:
  // Reads the log at `logPath` (readBestSchedules); an empty path is no log at all.
  ScheduleCoverage(std::string logPath, bool gpu);

  // The lookup for the kernel factories; empty without a log, so that they use defaults.
  std::function<std::optional<std::vector<schedule::Step>>(const std::string&)> lookup();

  std::size_t covered() const;   // distinct keys looked up that the log has
  std::size_t uncovered() const; // distinct keys looked up that it lacks

  // Warns (spdlog) when some looked-up keys have no schedule in the log.
  void warnIfIncomplete() const;

private:
  std::optional<std::vector<schedule::Step>> find(const std::string& key);

  std::string logPath_;
  std::map<std::string, BestRecord> best_;
  mutable std::mutex mutex_; // kernel factories may look up from several threads
  std::set<std::string> covered_, uncovered_;
};

} // namespace clustune::executor
