// clustune-measure: builds a measured dataset. Samples schedules for every task of a tasks.jsonl
// (search::sample), builds them in parallel, runs each in the isolated worker, checks its
// outputs against the reference and appends one record per candidate to records.jsonl, errors
// included, until each task has --per-task valid records. Rerunning with the same flags resumes;
// --shard i/N measures a deterministic share of the tasks. See docs/measurement.md.
//   clustune-measure TASKS.jsonl --target host|TARGET.json --per-task N [--seed S] [--shard i/N]
//                    [--time-budget SEC] -o records.jsonl
#include "codegen/Target.h"
#include "dataset/Campaign.h"
#include "dataset/Remeasure.h"
#include "graph/TaskFile.h"
#include "measure/Measurer.h"
#include "runtime/cuda/CudaDriver.h"
#include "support/Error.h"
#include "support/Statistics.h"
#include "support/ToolMain.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>
#include <thread>

using namespace clustune;

namespace {

nlohmann::ordered_json summaryJson(const dataset::CampaignSummary& summary,
                                   const measure::MeasureProfile& profile,
                                   const std::string& outputPath) {
  const double seconds = std::max(summary.seconds, 1e-9);
  nlohmann::ordered_json json;
  json["output"] = outputPath;
  json["tasks"] = summary.tasks;
  json["tasks_complete"] = summary.tasksComplete;
  json["tasks_exhausted"] = summary.tasksExhausted;
  json["tasks_skipped"] = summary.tasksSkipped;
  json["records"] = summary.records;
  json["valid"] = summary.valid;
  json["errors"] = summary.errors;
  json["error_rate"] = summary.records == 0
                           ? 0.0
                           : static_cast<double>(summary.records - summary.valid) / summary.records;
  json["seconds"] = summary.seconds;
  json["records_per_second"] = static_cast<double>(summary.records) / seconds;
  json["valid_per_second"] = static_cast<double>(summary.valid) / seconds;
  json["compile_seconds_median"] =
      summary.compileSeconds.empty() ? 0.0 : median(summary.compileSeconds);
  // Where the wall time went; "other" is sampling, writing records and the campaign's own work.
  json["stage_seconds"] = {
      {"build", profile.build},
      {"run", profile.run},
      {"reference", profile.reference},
      {"check", profile.check},
      {"other", summary.seconds - profile.build - profile.run - profile.reference - profile.check}};
  json["stopped_by"] = summary.stoppedBy.empty() ? nlohmann::ordered_json()
                                                 : nlohmann::ordered_json(summary.stoppedBy);
  return json;
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"Sample, build, run and check schedules for every task, appending records."};
  CommonOptions common;
  std::string tasksPath, outputPath, schedulesPath, targetName = "host", shardText = "0/1";
  int perTask = 300;
  int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  int threads = 0;
  int batchSize = 16;
  double timeBudget = 0, timeout = 10, buildTimeout = 30, slowFactor = 3;
  bool noCheck = false;
  std::int64_t maxRecords = 0;
  measure::TimingOptions timing{.number = 1, .repeat = 3, .minRepeatMs = 10, .cacheFlush = false};
  app.add_option("tasks", tasksPath, "tasks.jsonl from clustune-partition ('-' reads stdin)")
      ->required();
  app.add_option("-o,--output", outputPath,
                 "records.jsonl to append to; an existing file is resumed ('-': stdout)")
      ->required();
  app.add_option("--schedules", schedulesPath,
                 "Measure the schedules of this records.jsonl again instead of sampling (every "
                 "record whose task is in the tasks file; --per-task and --shard do not apply)");
  app.add_option("--target", targetName,
                 "'host', or a target description configs/targets/*.json (a CUDA one measures "
                 "on the GPU)")
      ->capture_default_str();
  app.add_option("--per-task", perTask, "Valid records wanted per task")->capture_default_str();
  app.add_option("--shard", shardText, "Measure only tasks t with t mod N = i (0-based)")
      ->capture_default_str();
  app.add_option("--time-budget", timeBudget,
                 "Start no new batch after this many seconds (0: no limit); rerun to resume")
      ->capture_default_str();
  app.add_option("--max-records", maxRecords,
                 "Stop once the output holds this many records, old and new (0: no limit)")
      ->capture_default_str();
  app.add_option("--jobs", jobs, "Candidates compiled at once")->capture_default_str();
  app.add_option("--build-timeout", buildTimeout,
                 "Seconds a candidate may compile before it is killed and recorded as "
                 "compile_timeout (0: no limit, compile in this process)")
      ->capture_default_str();
  app.add_option("--threads", threads, "Threads of the measured kernels (0: the target's cores)")
      ->capture_default_str();
  app.add_option("--batch-size", batchSize, "Candidates built together before they run")
      ->capture_default_str();
  app.add_option("--timeout", timeout, "Seconds per candidate before the worker is killed")
      ->capture_default_str();
  app.add_option("--repeat", timing.repeat, "Timed repeats per candidate, one cost each")
      ->capture_default_str();
  app.add_option("--min-repeat-ms", timing.minRepeatMs,
                 "Runs per repeat are raised until a repeat lasts this long")
      ->capture_default_str();
  app.add_option("--slow-factor", slowFactor,
                 "Every candidate of a batch runs once first; one that takes over this many "
                 "times its task's best cost (so far, or in its batch) is timed by one repeat "
                 "instead of --repeat (0: never, and no first run)")
      ->capture_default_str();
  app.add_flag("--no-check", noCheck,
               "Time candidates without comparing their outputs with the reference (for tasks "
               "whose reference would take minutes; the records are then unverified)");
  app.add_flag("--cache-flush", timing.cacheFlush,
               "Flush the caches before every timed run (as Tenset measured)");
  app.add_flag("--cold-weights", timing.coldWeights,
               "Evict the task's weights from the caches before every run (the warm-up too) and "
               "keep its activations warm, as a batch-1 inference meets them (CPU targets)");
  addCommonOptions(app, common, /*withSeed=*/true);

  return runTool(app, common, argc, argv, [&] {
    if (perTask < 1)
      throw Error("--per-task must be at least 1, got " + std::to_string(perTask));
    if (jobs < 1 || batchSize < 1 || threads < 0 || timing.repeat < 1 || timeout <= 0 ||
        timeBudget < 0 || timing.minRepeatMs < 0 || maxRecords < 0 || buildTimeout < 0 ||
        slowFactor < 0)
      throw Error(
          "--jobs, --batch-size and --repeat must be at least 1, --threads, "
          "--time-budget, --max-records, --min-repeat-ms, --build-timeout and --slow-factor "
          "non-negative, --timeout positive");
    const dataset::Shard shard = dataset::parseShard(shardText);
    const codegen::Target resolved = codegen::resolveTarget(targetName);
    measure::checkTimingForTarget(timing, resolved.gpu.has_value());
    if (resolved.gpu)
      runtime::cuda::CudaDriver::open(); // says why there is no GPU before any work
    const codegen::CpuTarget& target = resolved.cpu;
    const int kernelThreads = threads > 0 ? threads : target.cores;
    const std::vector<graph::Task> tasks = graph::readTaskFile(tasksPath);

    dataset::MeasuredIndex index = dataset::indexRecords(outputPath);
    std::int64_t existing = 0;
    for (const auto& [key, progress] : index)
      existing += static_cast<std::int64_t>(progress.measured.size());
    if (existing > 0)
      spdlog::info("{}: resuming after {} records of {} tasks", outputPath, existing, index.size());

    measure::MeasureOptions measureOptions;
    measureOptions.runner = {
        .timeoutSeconds = timeout, .timing = timing, .seed = common.seed, .threads = kernelThreads};
    measureOptions.gpu = resolved.gpu;
    measureOptions.buildParallelism = jobs;
    measureOptions.buildTimeoutSeconds = buildTimeout;
    measureOptions.slowCandidateFactor = slowFactor;
    measureOptions.checkCorrectness = !noCheck;
    if (noCheck)
      spdlog::warn("--no-check: outputs are not compared with the reference");
    measure::Measurer measurer(target, measureOptions);

    dataset::CampaignOptions options;
    options.perTask = perTask;
    options.seed = common.seed;
    options.shard = shard;
    options.sampling = {.cores = kernelThreads, .vectorLanes = target.vectorBits / 32};
    if (resolved.gpu)
      options.sampling.gpu = search::GpuSampleOptions{
          .maxThreadsPerBlock = resolved.gpu->maxThreadsPerBlock,
          .maxSharedMemoryPerBlock = resolved.gpu->maxSharedMemoryPerBlock};
    options.batchSize = batchSize;
    options.timeBudgetSeconds = timeBudget;
    options.maxRecords = maxRecords;
    options.target = codegen::targetLabel(resolved, kernelThreads);

    std::vector<measure::Record> schedules;
    if (!schedulesPath.empty())
      measure::readRecords(schedulesPath, [&](measure::Record&& record, const ErrorContext&) {
        schedules.push_back(std::move(record));
      });
    measure::RecordAppender output(outputPath);
    const dataset::CampaignSummary summary =
        schedulesPath.empty()
            ? dataset::runCampaign(tasks, measurer, output, index, options)
            : dataset::remeasureSchedules(tasks, schedules, measurer, output, index,
                                          {.batchSize = batchSize,
                                           .timeBudgetSeconds = timeBudget,
                                           .target = options.target});
    const std::string summaryText = summaryJson(summary, measurer.profile(), outputPath).dump();
    if (outputPath == "-")
      spdlog::info("summary: {}", summaryText);
    else
      std::printf("%s\n", summaryText.c_str());
    return 0;
  });
}
