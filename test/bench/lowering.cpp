// What the search pays per candidate before the cost model sees it: replays the schedules of a
// records.jsonl (for the tasks of a tasks.jsonl) and lowers each one `--repeat` times in this
// thread, timing replay and lowering apart. Each record's line carries a hash of its printed loop
// nest, and the summary a digest over all of them, so two builds that must lower identically can
// be compared by one field. Nothing here passes or fails.
// Usage: bench-lowering TASKS RECORDS [--repeat R] [--limit N]
#include "BenchSupport.h"
#include "graph/TaskFile.h"
#include "measure/RecordLog.h"
#include "schedule/Lower.h"
#include "schedule/State.h"
#include "support/Hash.h"
#include "support/Stopwatch.h"
#include "te/LowerTask.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

using namespace clustune;

namespace {

constexpr const char* kUsage = "usage: bench-lowering TASKS RECORDS [--repeat R] [--limit N]";

struct Options {
  std::string tasksPath, recordsPath;
  long repeat = 5;
  long limit = 0;
};

Options parseOptions(int argc, char** argv) {
  Options options;
  const std::vector<std::string> positional = bench::parseArguments(
      argc, argv, kUsage, {{"--repeat", &options.repeat}, {"--limit", &options.limit}});
  if (positional.size() != 2 || options.repeat < 1)
    throw Error(kUsage);
  options.tasksPath = positional[0];
  options.recordsPath = positional[1];
  return options;
}

} // namespace

int main(int argc, char** argv) try {
  const Options options = parseOptions(argc, argv);
  std::map<std::string, te::Workload> workloads;
  for (const graph::Task& task : graph::readTaskFile(options.tasksPath))
    workloads.emplace(task.key, te::lowerTask(task));
  std::vector<measure::Record> records;
  measure::readRecords(options.recordsPath, [&](measure::Record&& record, const ErrorContext&) {
    if (record.error.empty() && workloads.count(record.task) &&
        (options.limit == 0 || static_cast<long>(records.size()) < options.limit))
      records.push_back(std::move(record));
  });
  double replaySeconds = 0, lowerSeconds = 0;
  std::vector<double> perCandidate;
  std::string hashes;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const measure::Record& record = records[i];
    const te::Workload& workload = workloads.at(record.task);
    double replay = 0, lower = 0;
    std::string printed;
    for (long r = 0; r < options.repeat; ++r) {
      const auto start = SteadyClock::now();
      const schedule::State state = schedule::replay(workload, record.schedule);
      const double replayed = secondsSince(start);
      const te::LoweredFunction function = schedule::lower(workload, state, "candidate");
      lower += secondsSince(start) - replayed;
      replay += replayed;
      if (r == 0)
        printed = te::toString(function);
    }
    replaySeconds += replay;
    lowerSeconds += lower;
    perCandidate.push_back((replay + lower) / static_cast<double>(options.repeat));
    const std::string hash = toHex(stableHash(printed));
    hashes += hash;
    nlohmann::ordered_json json = {
        {"bench", "lowering"},
        {"task", record.task},
        {"index", i},
        {"replay_us", 1e6 * replay / static_cast<double>(options.repeat)},
        {"lower_us", 1e6 * lower / static_cast<double>(options.repeat)},
        {"nest_hash", hash}};
    std::printf("%s\n", json.dump().c_str());
  }
  const nlohmann::ordered_json summary = {
      {"bench", "lowering_summary"},
      {"records", records.size()},
      {"repeat", options.repeat},
      {"replay_s", replaySeconds},
      {"lower_s", lowerSeconds},
      {"median_candidate_us", 1e6 * bench::median(perCandidate)},
      {"digest", toHex(stableHash(hashes))}};
  std::printf("%s\n", summary.dump().c_str());
  return 0;
} catch (const std::exception& error) {
  std::fprintf(stderr, "error: %s\n", error.what());
  return 1;
}
