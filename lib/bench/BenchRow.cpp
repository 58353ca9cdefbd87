// The JSON form of clustune-bench's rows (docs/bench.md, "Rows").
#include "bench/BenchRow.h"

#include "support/Error.h"
#include "support/Jsonl.h"

#include <algorithm>

namespace clustune::bench {

double BenchRow::relativeSpread() const {
  return medianSeconds > 0.0 ? (p90Seconds - medianSeconds) / medianSeconds : 0.0;
}

std::string statusName(RowStatus status) {
  switch (status) {
  case RowStatus::Ok:
    return "ok";
  case RowStatus::MissingTuning:
    return "missing_tuning";
  case RowStatus::Unavailable:
    return "unavailable";
  case RowStatus::Failed:
    return "failed";
  }
  return "?";
}

nlohmann::ordered_json toJson(const BenchRow& row) {
  nlohmann::ordered_json entry = {{"bench", "clustune-bench"},
                                  {"model", row.model},
                                  {"batch", row.batch},
                                  {"compiler", row.compiler},
                                  {"status", statusName(row.status)}};
  if (!row.ok()) {
    entry["reason"] = row.reason;
    if (!row.missingTasks.empty())
      entry["missing_tasks"] = row.missingTasks;
  } else {
    entry["latency_ms"] = {{"median", row.medianSeconds * 1e3}, {"p90", row.p90Seconds * 1e3}};
    entry["per_sample_ms"] = row.perSampleSeconds() * 1e3;
    entry["throughput_per_s"] = row.throughput();
    nlohmann::ordered_json runs = nlohmann::ordered_json::array();
    for (double seconds : row.runSeconds)
      runs.push_back(seconds * 1e3);
    entry["runs_ms"] = runs;
    if (row.distinctTasks > 0) {
      entry["tasks"] = row.tasks;
      entry["distinct_tasks"] = row.distinctTasks;
    }
    if (row.maxAbsDiff >= 0.0) {
      entry["max_abs_diff"] = row.maxAbsDiff;
      entry["outputs_agree"] = row.outputsAgree;
    }
  }
  entry["threads"] = row.threads;
  entry["cpu"] = row.cpu;
  return entry;
}

BenchRow rowFromJson(const nlohmann::json& entry, const ErrorContext& context) {
  BenchRow row;
  try {
    row.model = entry.at("model").get<std::string>();
    row.batch = entry.at("batch").get<std::int64_t>();
    row.compiler = entry.at("compiler").get<std::string>();
    const std::string status = entry.at("status").get<std::string>();
    const auto known = {RowStatus::Ok, RowStatus::MissingTuning, RowStatus::Unavailable,
                        RowStatus::Failed};
    const auto found = std::find_if(known.begin(), known.end(),
                                    [&](RowStatus s) { return statusName(s) == status; });
    if (found == known.end())
      throw Error("unknown status '" + status + "'");
    row.status = *found;
    if (row.ok()) {
      row.medianSeconds = entry.at("latency_ms").at("median").get<double>() * 1e-3;
      row.p90Seconds = entry.at("latency_ms").at("p90").get<double>() * 1e-3;
      for (double ms : entry.value("runs_ms", std::vector<double>{}))
        row.runSeconds.push_back(ms * 1e-3);
      row.maxAbsDiff = entry.value("max_abs_diff", -1.0);
      row.outputsAgree = entry.value("outputs_agree", true);
      row.tasks = entry.value("tasks", 0);
      row.distinctTasks = entry.value("distinct_tasks", 0);
      if (row.medianSeconds <= 0.0)
        throw Error("latency_ms.median must be positive");
    } else {
      row.reason = entry.value("reason", "");
      row.missingTasks = entry.value("missing_tasks", std::vector<std::string>{});
    }
    row.threads = entry.value("threads", 0);
    row.cpu = entry.value("cpu", "");
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("not a clustune-bench row: ") + e.what(), context);
  } catch (const Error& e) {
    throw Error("not a clustune-bench row: " + e.message(), context);
  }
  if (row.batch < 1)
    throw Error("not a clustune-bench row: batch must be at least 1", context);
  return row;
}

std::vector<BenchRow> readRows(const std::string& path) {
  JsonlReader reader(path);
  std::vector<BenchRow> rows;
  nlohmann::json entry;
  while (reader.next(entry))
    rows.push_back(rowFromJson(entry, reader.context()));
  return rows;
}

} // namespace clustune::bench
