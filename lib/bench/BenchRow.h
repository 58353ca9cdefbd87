// One line of clustune-bench's output: a (model, batch, compiler) measurement, or why there is
// none. docs/bench.md documents the fields; friction metrics and the regression gate read these
// rows back, so a sweep can be analysed or gated long after it ran.
#pragma once

#include "support/Error.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace clustune::bench {

enum class RowStatus {
  Ok,            // timed
  MissingTuning, // tuned: the log lacks schedules for some tasks at this batch; not timed
  Unavailable,   // the compiler is not installed here (a peer)
  Failed,        // the compiler failed on this model (its message in `reason`)
};

struct BenchRow {
  std::string model = {};
  std::int64_t batch = 1;
  std::string compiler = {};
  RowStatus status = RowStatus::Ok;
  std::string reason = {};                    // status other than Ok
  std::vector<std::string> missingTasks = {}; // MissingTuning
  std::vector<double> runSeconds = {};        // every timed run, after the warm-up
  double medianSeconds = 0.0;
  double p90Seconds = 0.0;
  // clustune's compilers: task occurrences run, and distinct workload keys compiled (what
  // tuning pays for); 0 for peers.
  int tasks = 0;
  int distinctTasks = 0;
  int threads = 0;
  std::string cpu = {};
  // Largest absolute difference of the outputs from the sweep's first compiler at this
  // (model, batch), and whether it is within the conformance tolerance; absent (-1) for the
  // first compiler itself.
  double maxAbsDiff = -1.0;
  bool outputsAgree = true;

  bool ok() const { return status == RowStatus::Ok; }
  double perSampleSeconds() const { return medianSeconds / static_cast<double>(batch); }
  double throughput() const { return static_cast<double>(batch) / medianSeconds; }
  // The run-to-run spread, (p90 − median) / median: the noise the regression gate allows for.
  double relativeSpread() const;
};

nlohmann::ordered_json toJson(const BenchRow& row);
// Throws Error (with `context`) on a row that lacks a field or has a wrong type.
BenchRow rowFromJson(const nlohmann::json& entry, const ErrorContext& context);
// Every row of a bench.jsonl file ('-': stdin); Error names the file and line of a bad one.
std::vector<BenchRow> readRows(const std::string& path);

std::string statusName(RowStatus status);

} // namespace clustune::bench
