// Where a candidate's compile time goes: rebuilds the schedules of a records.jsonl (for the
// tasks of a tasks.jsonl) in this process, one at a time, and times each part of the build:
// lowering (te::lowerTask, replay, schedule::lower), emitting the LLVM module, the O3 pipeline
// and code generation to an object. Prints one JSON line per record and a closing summary line
// (median, p90 and total of each part); nothing here passes or fails. `--dump DIR` writes each
// module before O3, to feed opt/llc by hand (`llc-19 -O3 -time-passes`).
// Usage: bench-compile-time TASKS RECORDS [--limit N] [--dump DIR]
#include "BenchSupport.h"
#include "codegen/cpu/CpuCodegen.h"
#include "codegen/cpu/CpuTarget.h"
#include "graph/TaskFile.h"
#include "measure/RecordLog.h"
#include "schedule/Lower.h"
#include "schedule/State.h"
#include "support/Hash.h"
#include "support/Stopwatch.h"
#include "te/LowerTask.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

using namespace clustune;

namespace {

struct Options {
  std::string tasksPath, recordsPath, dumpDirectory;
  long limit = 0;
};

constexpr const char* kUsage = "usage: bench-compile-time TASKS RECORDS [--limit N] [--dump DIR]";

Options parseOptions(int argc, char** argv) {
  Options options;
  const std::vector<std::string> positional = bench::parseArguments(
      argc, argv, kUsage, {{"--limit", &options.limit}, {"--dump", &options.dumpDirectory}});
  if (positional.size() != 2)
    throw Error(kUsage);
  options.tasksPath = positional[0];
  options.recordsPath = positional[1];
  return options;
}

} // namespace

int main(int argc, char** argv) try {
  const Options options = parseOptions(argc, argv);
  std::map<std::string, graph::Task> tasks;
  for (graph::Task& task : graph::readTaskFile(options.tasksPath))
    tasks.emplace(task.key, std::move(task));
  std::vector<measure::Record> records;
  measure::readRecords(options.recordsPath, [&](measure::Record&& record, const ErrorContext&) {
    if (record.error.empty() && tasks.count(record.task) &&
        (options.limit == 0 || static_cast<long>(records.size()) < options.limit))
      records.push_back(std::move(record));
  });
  const codegen::CpuTarget target = codegen::hostCpuTarget();
  std::map<std::string, std::vector<double>> parts;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const measure::Record& record = records[i];
    const graph::Task& task = tasks.at(record.task);
    const auto start = SteadyClock::now();
    const te::Workload workload = te::lowerTask(task);
    const schedule::State state = schedule::replay(workload, record.schedule);
    const te::LoweredFunction function = schedule::lower(workload, state, "candidate");
    const double lower = secondsSince(start);
    codegen::CompileStageSeconds stages;
    const std::string object = codegen::compileToObject(function, target, &stages);
    const double total = secondsSince(start);
    if (!options.dumpDirectory.empty())
      std::ofstream(options.dumpDirectory + "/" + record.task + "-" + std::to_string(i) + ".ll")
          << codegen::emitLlvmIr(function, target, false);
    const std::map<std::string, double> line = {{"lower", lower},
                                                {"emit", stages.emit},
                                                {"optimize", stages.optimize},
                                                {"codegen", stages.codegen},
                                                {"total", total}};
    nlohmann::ordered_json json = {{"bench", "compile_time"}, {"task", record.task}, {"index", i}};
    for (const auto& [name, seconds] : line) {
      json[name + "_s"] = seconds;
      parts[name].push_back(seconds);
    }
    json["object_bytes"] = object.size();
    // Tells which candidates two builds compile to the same code.
    json["object_hash"] = toHex(stableHash(object));
    std::printf("%s\n", json.dump().c_str());
    std::fflush(stdout);
  }
  nlohmann::ordered_json summary = {
      {"bench", "compile_time_summary"}, {"cpu", target.cpu}, {"records", records.size()}};
  for (const auto& [name, values] : parts) {
    double sum = 0;
    for (double value : values)
      sum += value;
    summary[name] = {{"median_s", bench::quantile(values, 0.5)},
                     {"p90_s", bench::quantile(values, 0.9)},
                     {"total_s", sum}};
  }
  std::printf("%s\n", summary.dump().c_str());
  return 0;
} catch (const std::exception& error) {
  std::fprintf(stderr, "error: %s\n", error.what());
  return 1;
}
