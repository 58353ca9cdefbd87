// clustune-tune: tunes every task of ONNX models (or of a tasks.jsonl) with evolutionary search
// guided by a cost model, measuring each candidate for real, and appends one record per
// measured candidate to the tuning log, which clustune-run --log then runs the model with.
// Rerunning the same command resumes the log. See docs/tuning.md.
//   clustune-tune MODEL.onnx... | --tasks tasks.jsonl -o tuning.jsonl [--trials N]
//                 [--time-budget SEC] [--mode cluster|global|online|random] [--cost-model DIR]
//                 [--no-update] [--update-share 0.1] [--per-round 64] [--no-transfer]
//                 [--no-relative-transfer] [--donor-tasks TASKS --donor-log LOG]
//                 [--scheduler gradient|round-robin] [--cache-flush]
//                 [--population 2048] [--population-per-candidate 32] [--generations 4]
//                 [--curve curve.jsonl] [--target host|FILE] [--threads T] [--jobs J] [--seed S]
#include "codegen/Target.h"
#include "graph/Partition.h"
#include "graph/TaskFile.h"
#include "measure/Measurer.h"
#include "measure/RecordLog.h"
#include "onnx/ModelTasks.h"
#include "runtime/cuda/CudaDriver.h"
#include "search/EvolutionarySearch.h"
#include "search/GpuSampleSearch.h"
#include "search/RandomCostModel.h"
#include "support/Error.h"
#include "support/ToolMain.h"
#include "tune/CostModelDirectory.h"
#include "tune/LearnedCostModels.h"
#include "tune/Tuner.h"

#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <spdlog/spdlog.h>
#include <thread>

using namespace clustune;

namespace {

enum class Mode { Cluster, Global, Online, Random };

Mode modeFromName(const std::string& name) {
  if (name == "cluster")
    return Mode::Cluster;
  if (name == "global")
    return Mode::Global;
  if (name == "online")
    return Mode::Online;
  if (name == "random")
    return Mode::Random;
  throw Error("unknown --mode '" + name + "' (expected cluster, global, online or random)");
}

std::vector<graph::Task> tasksOf(const std::vector<std::string>& modelPaths,
                                 const std::string& tasksPath,
                                 const onnx_import::ImportOptions& options,
                                 std::int64_t channelBlock) {
  if (!tasksPath.empty())
    return graph::readTaskFile(tasksPath);
  std::vector<graph::Task> tasks;
  for (const std::string& path : modelPaths) {
    onnx_import::ModelTasks model = onnx_import::partitionModelFile(path, options, channelBlock);
    spdlog::info("{}: {} tasks", path, model.tasks.size());
    for (graph::Task& task : model.tasks)
      tasks.push_back(std::move(task));
  }
  return graph::mergeTasks(std::move(tasks));
}

// The donor tasks of --donor-tasks with their records in --donor-log. A donor without records
// is left out; records of tasks that are not donors are ignored.
std::vector<tune::DonorTask> donorsOf(const std::string& tasksPath, const std::string& logPath,
                                      const std::string& target) {
  // The log may hold many other tasks' records: only the donors' are kept.
  std::map<std::string, std::vector<measure::Record>> byTask;
  std::vector<graph::Task> tasks = graph::readTaskFile(tasksPath);
  for (const graph::Task& task : tasks)
    byTask[task.key];
  int otherTarget = 0;
  std::string otherTargetName;
  measure::readRecords(logPath, [&](measure::Record&& record, const ErrorContext&) {
    auto records = byTask.find(record.task);
    if (records == byTask.end())
      return;
    if (record.target != target) {
      ++otherTarget;
      otherTargetName = record.target;
    }
    records->second.push_back(std::move(record));
  });
  if (otherTarget > 0)
    spdlog::warn("{}: {} records were measured on '{}', not on this run's '{}'; they only rank "
                 "the schedules offered, which are measured here",
                 logPath, otherTarget, otherTargetName, target);
  std::vector<tune::DonorTask> donors;
  int withoutRecords = 0;
  for (graph::Task& task : tasks) {
    std::vector<measure::Record>& records = byTask[task.key];
    if (records.empty()) {
      ++withoutRecords;
      continue;
    }
    donors.push_back({.task = std::move(task), .records = std::move(records)});
  }
  if (donors.empty())
    throw Error(logPath + " has no record of a task of " + tasksPath +
                ": were they tuned with the same --layout?");
  spdlog::info("{} donor tasks from {} ({} without records)", donors.size(), logPath,
               withoutRecords);
  return donors;
}

nlohmann::ordered_json millisecondsOrNull(double seconds) {
  return seconds > 0 ? nlohmann::ordered_json(seconds * 1e3) : nlohmann::ordered_json();
}

nlohmann::ordered_json summaryJson(const tune::TuneSummary& summary, const std::string& output,
                                   const std::string& mode, const std::string& costModel,
                                   const std::string& cpu, const measure::TimingOptions& timing) {
  const double seconds = std::max(summary.seconds, 1e-9);
  nlohmann::ordered_json json;
  json["output"] = output;
  json["mode"] = mode;
  json["cost_model"] =
      costModel.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(costModel);
  json["cpu"] = cpu;
  json["timing"] = timing.cacheFlush ? "cache_flush" : timing.coldWeights ? "cold_weights" : "warm";
  json["tasks"] = summary.tasks;
  json["trials"] = summary.trials;
  json["new_trials"] = summary.newTrials;
  json["rounds"] = summary.rounds;
  json["valid"] = summary.valid;
  json["errors"] = summary.errors;
  json["seconds"] = summary.seconds;
  json["tuning_seconds"] = summary.totalSeconds;
  json["search_seconds"] = summary.searchSeconds;
  json["measure_seconds"] = summary.measureSeconds;
  json["update_seconds"] = summary.updateSeconds;
  json["search_share"] = summary.searchSeconds / seconds;
  json["update_share"] = summary.updateSeconds / seconds;
  json["trials_per_second"] = summary.newTrials / seconds;
  json["default_ms"] = millisecondsOrNull(summary.defaultSeconds);
  json["estimated_ms"] = millisecondsOrNull(summary.estimatedSeconds);
  json["speedup"] = summary.defaultSeconds > 0 && summary.estimatedSeconds > 0
                        ? nlohmann::ordered_json(summary.defaultSeconds / summary.estimatedSeconds)
                        : nlohmann::ordered_json();
  json["exhausted_tasks"] = summary.exhaustedTasks;
  json["transferred_trials"] = summary.transferredTrials;
  json["transferred_best_tasks"] = summary.transferredBestTasks;
  json["donor_tasks"] = summary.donorTasks;
  json["stopped_by"] = summary.stoppedBy;
  return json;
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"Tune every task of ONNX models with evolutionary search, a cost model and real "
               "measurements, appending each measured candidate to a tuning log."};
  CommonOptions common;
  std::vector<std::string> modelPaths, inputShapes;
  std::string donorTasksPath, donorLogPath;
  std::string tasksPath, outputPath, curvePath, costModelPath, targetName = "host", layout = "NCHW";
  std::string modeName = "cluster", schedulerName = "gradient";
  std::optional<std::int64_t> batch;
  std::optional<int> trials;
  double timeBudget = 0, timeout = 10, buildTimeout = 30, updateShare = 0.1;
  bool noUpdate = false;
  bool noTransfer = false;
  bool noRelativeTransfer = false;
  bool noCheck = false;
  int perRound = 64;
  int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  int threads = 0;
  search::EvolutionOptions evolution;
  measure::TimingOptions timing{.number = 1, .repeat = 3, .minRepeatMs = 10, .cacheFlush = false};
  app.add_option("models", modelPaths, "ONNX models to tune together ('-' reads one from stdin)");
  app.add_option("--tasks", tasksPath, "Tune the tasks of a tasks.jsonl instead of models");
  app.add_option("-o,--output", outputPath,
                 "Tuning log (records.jsonl) to append to; an existing one is resumed")
      ->required();
  app.add_option("--trials", trials, "Measured candidates in all, default schedules included");
  app.add_option("--time-budget", timeBudget,
                 "Start no round after this many seconds of tuning (0: no limit)")
      ->capture_default_str();
  app.add_option("--mode", modeName,
                 "Cost model: cluster (per-cluster MLPs, the paper), global (one MLP, Tenset), "
                 "online (an MLP learnt from this run only, Ansor) or random")
      ->capture_default_str();
  app.add_option("--cost-model", costModelPath,
                 "Cost-model directory for cluster and global (default: the bundled one for "
                 "the host CPU, models/costmodels/cpu-<cpu>)");
  app.add_flag("--no-update", noUpdate,
               "Keep the pretrained cost model fixed (by default it is fine-tuned on the run's "
               "measurements after every round)");
  app.add_option("--update-share", updateShare,
                 "The most a round's cost-model update may take, as a share of the round's "
                 "search and measurement time (0: no limit); training stops early to stay "
                 "within it")
      ->capture_default_str();
  app.add_option("--per-round", perRound, "Candidates measured per round")->capture_default_str();
  app.add_flag("--no-transfer", noTransfer,
               "Do not try the fastest schedules of sibling tasks (tasks whose reductions are "
               "the same computation, such as a convolution with and without a residual "
               "addition) or of relative tasks in a task's rounds");
  app.add_flag("--no-relative-transfer", noRelativeTransfer,
               "Transfer from sibling tasks only, not from relatives (reductions of the same "
               "kind on other shapes, whose schedules are adapted to the task's extents)");
  app.add_option("--donor-tasks", donorTasksPath,
                 "Tasks tuned in another run (a tasks.jsonl, such as the same model at batch 1), "
                 "whose fastest schedules in --donor-log are offered to this run's sibling and "
                 "relative tasks; donors are not tuned");
  app.add_option("--donor-log", donorLogPath, "The tuning log of the --donor-tasks");
  app.add_option("--scheduler", schedulerName, "Task scheduler: gradient or round-robin")
      ->capture_default_str();
  app.add_option("--population", evolution.population,
                 "Evolutionary search population (with --population-per-candidate, the most)")
      ->capture_default_str();
  app.add_option("--population-per-candidate", evolution.populationPerCandidate,
                 fmt::format("A round's population per candidate it measures, at least {} and at "
                             "most --population (0: --population for every round)",
                             evolution.minPopulation))
      ->capture_default_str();
  app.add_option("--generations", evolution.iterations, "Evolutionary search generations")
      ->capture_default_str();
  app.add_option("--curve", curvePath, "Append one JSON line per round (the search curve) here");
  app.add_option("--target", targetName,
                 "'host', or a target description configs/targets/*.json (a CUDA one tunes for "
                 "the GPU, with --mode online or random)")
      ->capture_default_str();
  app.add_option("--threads", threads, "Threads of the measured kernels (0: the target's cores)")
      ->capture_default_str();
  app.add_option("--jobs", jobs, "Candidates compiled at once")->capture_default_str();
  app.add_option("--batch", batch, "Value for dynamic batch dimensions")
      ->check(CLI::PositiveNumber);
  app.add_option("--input-shape", inputShapes, "Set a graph input's shape, NAME=D1xD2x...");
  app.add_option("--layout", layout,
                 "Convolution layout of the models' tasks: NCHW, or blocked NCHW<x>c such as "
                 "NCHW16c (run the log with the same --layout)")
      ->capture_default_str();
  app.add_option("--timeout", timeout, "Seconds per candidate before the worker is killed")
      ->capture_default_str();
  app.add_option("--build-timeout", buildTimeout,
                 "Seconds a candidate may compile before it is recorded as compile_timeout")
      ->capture_default_str();
  app.add_option("--repeat", timing.repeat, "Timed repeats per candidate")->capture_default_str();
  app.add_option("--min-repeat-ms", timing.minRepeatMs,
                 "Runs per repeat are raised until a repeat lasts this long")
      ->capture_default_str();
  app.add_flag("--cache-flush", timing.cacheFlush,
               "Flush the caches before every timed run, so that candidates are chosen by their "
               "cost with cold caches, activations and weights alike");
  app.add_flag("--cold-weights", timing.coldWeights,
               "Evict the task's weights from the caches before every run (the warm-up too) and "
               "keep its activations warm, as a batch-1 inference meets them (CPU targets)");
  app.add_flag("--no-check", noCheck,
               "Time candidates without comparing their outputs with the reference (for tasks "
               "whose reference would take minutes; the log's schedules are then unverified: "
               "check the result with clustune-run --check)");
  addCommonOptions(app, common, /*withSeed=*/true);

  return runTool(app, common, argc, argv, [&] {
    Mode mode = modeFromName(modeName);
    const codegen::Target resolved = codegen::resolveTarget(targetName);
    if (resolved.gpu && app.count("--mode") == 0) {
      mode = Mode::Online;
      modeName = "online";
      spdlog::info("a CUDA target: the cost model is learnt online (no pretrained GPU models yet)");
    }
    if (resolved.gpu && (mode == Mode::Cluster || mode == Mode::Global))
      throw Error("--mode " + modeName +
                  " needs cost models trained on GPU measurements, and "
                  "none exist yet; tune a CUDA target with --mode online or random");
    measure::checkTimingForTarget(timing, resolved.gpu.has_value());
    if (resolved.gpu)
      runtime::cuda::CudaDriver::open(); // says why there is no GPU before any work
    const search::SchedulerKind schedulerKind = search::schedulerKindFromName(schedulerName);
    if (trials && *trials < 1)
      throw Error("--trials must be at least 1, got " + std::to_string(*trials));
    if (!trials && timeBudget <= 0)
      throw Error("give a budget: --trials N and/or --time-budget SEC");
    if (timeBudget < 0 || perRound < 1 || jobs < 1 || threads < 0 || timing.repeat < 1 ||
        timeout <= 0 || buildTimeout < 0 || evolution.population < 1 ||
        evolution.populationPerCandidate < 0 || evolution.iterations < 0)
      throw Error("--per-round, --jobs, --repeat and --population must be at least 1, "
                  "--time-budget, --threads, --generations, --population-per-candidate and "
                  "--build-timeout non-negative, --timeout positive");
    if (!(updateShare >= 0 && updateShare < 1))
      throw Error(
          fmt::format("--update-share must be at least 0 and below 1, got {}", updateShare));
    if (modelPaths.empty() == tasksPath.empty())
      throw Error("give either ONNX models or --tasks tasks.jsonl");
    if (noUpdate && (mode == Mode::Online || mode == Mode::Random))
      throw Error("--no-update keeps a pretrained model fixed; --mode " + modeName + " has none");
    if (!costModelPath.empty() && (mode == Mode::Online || mode == Mode::Random))
      throw Error("--cost-model is for --mode cluster or global, not " + modeName);
    if (donorTasksPath.empty() != donorLogPath.empty())
      throw Error("--donor-tasks and --donor-log go together: the donors and their tuning log");
    if (!donorLogPath.empty() && noTransfer)
      throw Error("--donor-log offers schedules to transfer, and --no-transfer turns transfer off");
    // Each is locked for appending; the second lock would report "another run" on this one.
    if (!curvePath.empty() && std::filesystem::weakly_canonical(curvePath) ==
                                  std::filesystem::weakly_canonical(outputPath))
      throw Error("--curve and -o name the same file, " + curvePath +
                  ": the curve and the log are separate files");

    const std::vector<graph::Task> tasks =
        tasksOf(modelPaths, tasksPath, onnx_import::importOptionsFromFlags(batch, inputShapes),
                onnx_import::channelBlockFromFlag(layout));
    if (tasks.empty())
      throw Error("there is nothing to tune: no tasks");
    if (trials && *trials < static_cast<int>(tasks.size()))
      throw Error(fmt::format("--trials {} is below the number of tasks ({}): every task's "
                              "default schedule is measured first",
                              *trials, tasks.size()));
    const codegen::CpuTarget& target = resolved.cpu;
    const int kernelThreads = threads > 0 ? threads : target.cores;
    evolution.sampling = {.cores = kernelThreads, .vectorLanes = target.vectorBits / 32};

    std::optional<tune::CostModelDirectory> directory;
    std::unique_ptr<search::CostModel> model;
    if (mode == Mode::Cluster || mode == Mode::Global) {
      if (costModelPath.empty())
        costModelPath = tune::bundledCostModelDirectory(target.cpu);
      directory = tune::loadCostModelDirectory(costModelPath, target.cpu);
      model = std::make_unique<tune::PretrainedCostModel>(
          directory->ensemble, directory->gae ? &*directory->gae : nullptr,
          mode == Mode::Cluster ? tune::Routing::Cluster : tune::Routing::Global,
          tune::FineTuning{
              .enabled = !noUpdate,
              .training = {
                  .epochs = 10, .seed = common.seed, .patience = 0, .fitFeatureScale = false}});
    } else if (mode == Mode::Online) {
      model = std::make_unique<tune::OnlineCostModel>(common.seed, tune::OnlineTraining{});
    } else {
      model = std::make_unique<search::RandomCostModel>(common.seed);
    }

    std::vector<search::ScheduledTask> scheduled;
    std::set<std::string> keys;
    for (const graph::Task& task : tasks) {
      scheduled.push_back({.weight = static_cast<double>(task.totalWeight()),
                           .flops = static_cast<double>(task.flops),
                           .tag = task.anchor});
      keys.insert(task.key);
    }
    const std::unique_ptr<search::TaskScheduler> scheduler =
        search::makeTaskScheduler(schedulerKind, std::move(scheduled));
    std::unique_ptr<search::SearchStrategy> strategy;
    if (resolved.gpu)
      strategy = std::make_unique<search::GpuSampleSearch>(search::GpuSampleSearchOptions{
          .pool = 8 * perRound,
          .sampling = {.maxThreadsPerBlock = resolved.gpu->maxThreadsPerBlock,
                       .maxSharedMemoryPerBlock = resolved.gpu->maxSharedMemoryPerBlock}});
    else
      strategy = std::make_unique<search::EvolutionarySearch>(evolution);

    measure::MeasureOptions measureOptions;
    measureOptions.runner = {
        .timeoutSeconds = timeout, .timing = timing, .seed = common.seed, .threads = kernelThreads};
    measureOptions.gpu = resolved.gpu;
    measureOptions.buildParallelism = jobs;
    measureOptions.buildTimeoutSeconds = buildTimeout;
    measureOptions.checkCorrectness = !noCheck;
    if (noCheck)
      spdlog::warn("--no-check: outputs are not compared with the reference");
    measure::Measurer measurer(target, measureOptions);

    const std::string targetString = codegen::targetLabel(resolved, kernelThreads);
    // The log first: a run refused for its log (locked, corrupt) leaves no curve file behind.
    tune::Database database(outputPath, keys, targetString);
    const std::vector<tune::DonorTask> donors =
        donorLogPath.empty() ? std::vector<tune::DonorTask>{}
                             : donorsOf(donorTasksPath, donorLogPath, targetString);
    std::optional<tune::CurveWriter> curve;
    if (!curvePath.empty())
      curve.emplace(curvePath);
    tune::Tuner tuner(
        tasks, measurer, *model, *strategy, *scheduler, database,
        {.trials = trials.value_or(0),
         .timeBudgetSeconds = timeBudget,
         .perRound = perRound,
         .fastestSeeds = static_cast<int>(evolution.measuredSeedRatio * evolution.population),
         .transferSeeds = noTransfer ? 0 : 16,
         .relativeSeeds = noRelativeTransfer ? 0 : 4,
         .updateShare = updateShare,
         .seed = common.seed,
         .target = targetString,
         .defaults = {.cores = kernelThreads, .vectorLanes = target.vectorBits / 32},
         .gpuDefaults =
             resolved.gpu ? std::optional(schedule::GpuScheduleOptions{
                                .threadsPerBlock = std::min(256, resolved.gpu->maxThreadsPerBlock)})
                          : std::nullopt},
        donors);
    tune::ProgressLogger progress;
    tuner.addCallback(progress);
    if (curve)
      tuner.addCallback(*curve);
    spdlog::info("tuning {} tasks with the {} cost model{}", tasks.size(), model->name(),
                 costModelPath.empty() ? "" : " of " + costModelPath);
    const tune::TuneSummary summary = tuner.run();
    std::printf("%s\n",
                summaryJson(summary, outputPath, model->name(), costModelPath, target.cpu, timing)
                    .dump()
                    .c_str());
    return 0;
  });
}
