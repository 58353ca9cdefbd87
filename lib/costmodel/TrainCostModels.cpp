#include "costmodel/TrainCostModels.h"

#include "cluster/ClusterFile.h"
#include "costmodel/CostModelEnsemble.h"
#include "costmodel/DatasetSplit.h"
#include "costmodel/MlpCostModelFile.h"
#include "graph/TaskFile.h"
#include "measure/RecordLog.h"
#include "support/Error.h"
#include "support/Files.h"
#include "support/Stopwatch.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <set>
#include <spdlog/spdlog.h>

namespace clustune::costmodel {
namespace {

struct ModelData {
  ProgramDataset training;
  ProgramDataset validation;
};

nlohmann::ordered_json trainOne(const std::string& name, MlpCostModel& model, const ModelData& data,
                                const TrainingOptions& options, bool fitFeatureScale) {
  // Training time grows with statements, not programs: every statement row goes through the
  // encoder.
  spdlog::info("{}: training on {} programs of {} tasks ({:.1f} statements per program), "
               "validating on {} programs",
               name, data.training.programCount(), data.training.taskKeys.size(),
               static_cast<double>(data.training.statements.rows()) /
                   static_cast<double>(std::max<std::size_t>(1, data.training.programCount())),
               data.validation.programCount());
  TrainingOptions modelOptions = options;
  modelOptions.fitFeatureScale = fitFeatureScale;
  const TrainingResult result =
      trainMlp(model, data.training, data.validation, modelOptions, [&](const EpochReport& epoch) {
        spdlog::info("{} epoch {:>3}: training loss {:.5f}, validation loss {:.5f}{} ({:.1f} s, "
                     "{:.0f} programs/s)",
                     name, epoch.epoch, epoch.trainingLoss, epoch.validationLoss,
                     epoch.improved ? " *" : "", epoch.seconds, epoch.programsPerSecond);
      });
  nlohmann::ordered_json summary;
  summary["name"] = name;
  summary["file"] = name + ".onnx";
  summary["programs"] = data.training.programCount();
  summary["validation_programs"] = data.validation.programCount();
  summary["tasks"] = data.training.taskKeys.size();
  summary["epochs"] = result.epochs;
  summary["best_epoch"] = result.bestEpoch;
  summary["validation_loss"] = result.bestValidationLoss;
  summary["seconds"] = result.seconds;
  summary["programs_per_second"] = result.programsPerSecond;
  return summary;
}

// A float option as the decimal a user typed (7e-4, not 0.000699999975...).
double shortestDecimal(float value) {
  return std::stod(fmt::format("{}", value));
}

// The global model of `directory`, checked to be one this request could have trained: the same
// held-out model (else the fold's held-out tasks leak into its training) and architecture.
std::pair<MlpCostModel, nlohmann::ordered_json>
loadGlobalModel(const TrainRequest& request, const MlpArchitecture& architecture) {
  const CostModelEnsemble source = CostModelEnsemble::load(request.globalFrom);
  const ErrorContext context{(std::filesystem::path(request.globalFrom) / "meta.json").string()};
  if (!source.hasModel(kGlobalModelName))
    throw Error("--global-from: the directory has no global model", context);
  const nlohmann::json& meta = source.meta();
  const nlohmann::json holdout = meta.value("holdout_model", nlohmann::json());
  const nlohmann::json wanted =
      request.holdoutModel.empty() ? nlohmann::json() : nlohmann::json(request.holdoutModel);
  if (holdout != wanted)
    throw Error("--global-from: its global model was trained with holdout_model " + holdout.dump() +
                    ", but this run holds out " + wanted.dump(),
                context);
  const MlpCostModel& global = source.model(kGlobalModelName);
  const MlpArchitecture& loaded = global.architecture();
  if (loaded.features != architecture.features || loaded.hidden != architecture.hidden ||
      loaded.residualBlocks != architecture.residualBlocks)
    throw Error(fmt::format("--global-from: its global model has width {} and {} residual "
                            "blocks, but this run asks for {} and {} (--hidden, "
                            "--residual-blocks)",
                            loaded.hidden, loaded.residualBlocks, architecture.hidden,
                            architecture.residualBlocks),
                context);
  if (meta.value("seed", nlohmann::json()) != nlohmann::json(request.training.seed))
    spdlog::warn("--global-from: its global model was trained with seed {}, this run uses {}: "
                 "their validation splits differ",
                 meta.value("seed", nlohmann::json()).dump(), request.training.seed);
  nlohmann::ordered_json summary;
  for (const nlohmann::json& entry : meta.at("models"))
    if (entry.value("name", "") == kGlobalModelName)
      summary = entry;
  summary["loaded_from"] = request.globalFrom;
  return {global, summary};
}

std::string targetOf(const std::vector<measure::Record>& records) {
  std::set<std::string> targets;
  for (const measure::Record& record : records)
    targets.insert(record.target);
  // Labels are normalised per task and target (ProgramDataset::labels), so several machines'
  // records can train one model; meta.json names the first target in sorted order.
  if (targets.size() > 1) {
    std::string names;
    for (const std::string& target : targets)
      names += (names.empty() ? "'" : ", '") + target + "'";
    spdlog::info("the records come from {} targets, {}; labels compare each program with its "
                 "task's fastest on the same target",
                 targets.size(), names);
  }
  return targets.empty() ? "" : *targets.begin();
}

} // namespace

TrainMode trainModeFromName(const std::string& name) {
  if (name == "global")
    return TrainMode::Global;
  if (name == "cluster")
    return TrainMode::Cluster;
  if (name == "both")
    return TrainMode::Both;
  throw Error("unknown --mode '" + name + "' (expected global, cluster or both)");
}

ClusterInit clusterInitFromName(const std::string& name) {
  if (name == "scratch")
    return ClusterInit::Scratch;
  if (name == "global")
    return ClusterInit::Global;
  throw Error("unknown --cluster-init '" + name + "' (expected scratch or global)");
}

nlohmann::ordered_json trainCostModels(const TrainRequest& request) {
  const auto start = SteadyClock::now();
  const bool wantClusters = request.mode != TrainMode::Global;
  if (wantClusters && request.clusterFile.empty())
    throw Error("--mode cluster and --mode both need --clusters clusters.json");
  if (!request.globalFrom.empty() &&
      (request.mode == TrainMode::Global ||
       (request.mode == TrainMode::Cluster && request.clusterInit == ClusterInit::Scratch)))
    throw Error("--global-from gives the global model that per-cluster models are fine-tuned "
                "from or fall back to: use it with --mode both, or --mode cluster and "
                "--cluster-init global");
  std::optional<cluster::ClusterFile> clusters;
  if (!request.clusterFile.empty())
    clusters = cluster::readClusterFile(request.clusterFile);

  const std::vector<graph::Task> tasks = graph::readTaskFile(request.taskFile);
  std::vector<measure::Record> records;
  for (const std::string& file : request.recordFiles)
    measure::readRecords(file, [&](measure::Record&& record, const ErrorContext&) {
      records.push_back(std::move(record));
    });
  DatasetReport report;
  ProgramDataset dataset = buildProgramDataset(tasks, records, &report);
  spdlog::info("{} records: {} programs of {} tasks; skipped {} failed measurements, {} of "
               "unknown tasks, {} schedules that no longer lower",
               report.records, report.programs, report.tasks, report.skippedErrors,
               report.skippedUnknownTasks, report.skippedUnloweredSchedules);
  if (report.skippedUnknownTasks > 0)
    spdlog::warn("{} records name tasks that {} does not hold; they were skipped",
                 report.skippedUnknownTasks, displayPath(request.taskFile));
  if (!request.holdoutModel.empty()) {
    const ProgramSplit split = splitByModel(dataset, tasks, request.holdoutModel);
    spdlog::info("holding out model {}: {} programs of its tasks are left for evaluation",
                 request.holdoutModel, split.second.size());
    dataset = selectPrograms(dataset, split.first);
  }
  if (dataset.programCount() == 0)
    throw Error("no training programs left (every record was skipped or held out)");

  const ProgramSplit validationSplit =
      splitWithinTasks(dataset, request.validationFraction, request.training.seed);
  const std::vector<std::size_t>& trainingPrograms = validationSplit.first;
  const std::vector<std::size_t>& validationPrograms = validationSplit.second;

  std::filesystem::create_directories(request.outputDirectory);
  auto outputPath = [&](const std::string& file) {
    return (std::filesystem::path(request.outputDirectory) / file).string();
  };

  nlohmann::ordered_json meta;
  meta["v"] = kCostModelMetaVersion;
  meta["kind"] = "clustune.costmodel";
  meta["feature_version"] = features::kProgramFeatureVersion;
  meta["target"] = targetOf(records);
  meta["seed"] = request.training.seed;
  meta["loss"] = lossKindName(request.training.loss);
  meta["mode"] = request.mode == TrainMode::Global    ? "global"
                 : request.mode == TrainMode::Cluster ? "cluster"
                                                      : "both";
  meta["cluster_init"] = request.clusterInit == ClusterInit::Global ? "global" : "scratch";
  meta["global_from"] = request.globalFrom.empty() ? nlohmann::ordered_json()
                                                   : nlohmann::ordered_json(request.globalFrom);
  meta["holdout_model"] = request.holdoutModel.empty()
                              ? nlohmann::ordered_json()
                              : nlohmann::ordered_json(request.holdoutModel);
  meta["data"] = {{"records", request.recordFiles},
                  {"tasks", request.taskFile},
                  {"clusters", request.clusterFile.empty()
                                   ? nlohmann::ordered_json()
                                   : nlohmann::ordered_json(request.clusterFile)},
                  {"record_count", report.records},
                  {"programs", dataset.programCount()},
                  {"task_count", dataset.taskKeys.size()},
                  {"skipped_errors", report.skippedErrors},
                  {"skipped_unknown_tasks", report.skippedUnknownTasks},
                  {"skipped_unlowered", report.skippedUnloweredSchedules}};
  meta["training"] = {
      {"epochs", request.training.epochs},
      {"batch_programs", request.training.batchPrograms},
      {"learning_rate", shortestDecimal(request.training.adam.learningRate)},
      {"learning_rate_schedule", learningRateScheduleName(request.training.schedule)},
      {"weight_decay", shortestDecimal(request.training.adam.weightDecay)},
      {"gradient_clip_norm", shortestDecimal(request.training.adam.gradientClipNorm)},
      {"validation_fraction", request.validationFraction},
      {"hidden", request.hidden},
      {"residual_blocks", request.residualBlocks}};
  nlohmann::ordered_json models = nlohmann::ordered_json::array();
  const std::map<std::string, std::string> fileMetadata = {
      {"clustune.target", meta["target"].get<std::string>()},
      {"clustune.seed", std::to_string(request.training.seed)},
      {"clustune.loss", meta["loss"].get<std::string>()}};

  const MlpArchitecture architecture{.features = static_cast<int>(kStatementFeatureCount),
                                     .hidden = request.hidden,
                                     .residualBlocks = request.residualBlocks};
  std::optional<MlpCostModel> global;
  if (!request.globalFrom.empty()) {
    auto [loaded, summary] = loadGlobalModel(request, architecture);
    global.emplace(std::move(loaded));
    spdlog::info("global: taken from {} (validation loss {})", request.globalFrom,
                 summary.value("validation_loss", nlohmann::json()).dump());
    models.push_back(summary);
    saveMlpCostModel(outputPath(std::string(kGlobalModelName) + ".onnx"), *global, fileMetadata);
  } else if (request.mode != TrainMode::Cluster || request.clusterInit == ClusterInit::Global) {
    global.emplace(architecture, request.training.seed);
    const ModelData data{selectPrograms(dataset, trainingPrograms),
                         selectPrograms(dataset, validationPrograms)};
    models.push_back(trainOne(kGlobalModelName, *global, data, request.training, true));
    saveMlpCostModel(outputPath(std::string(kGlobalModelName) + ".onnx"), *global, fileMetadata);
  }

  if (wantClusters) {
    std::vector<double> radii;
    for (int cluster = 0; cluster < clusters->k; ++cluster) {
      std::set<std::string> members;
      for (const auto& [key, assigned] : clusters->assign)
        if (assigned == cluster)
          members.insert(key);
      const std::set<std::size_t> inCluster = [&] {
        const std::vector<std::size_t> list = programsOfTasks(dataset, members);
        return std::set<std::size_t>(list.begin(), list.end());
      }();
      std::vector<std::size_t> clusterTraining, clusterValidation;
      for (std::size_t program : trainingPrograms)
        if (inCluster.count(program))
          clusterTraining.push_back(program);
      for (std::size_t program : validationPrograms)
        if (inCluster.count(program))
          clusterValidation.push_back(program);
      const std::string name = clusterModelName(cluster);
      if (clusterTraining.size() < request.minimumClusterPrograms) {
        spdlog::warn("{}: {} training programs (fewer than {}); {}", name, clusterTraining.size(),
                     request.minimumClusterPrograms,
                     global ? "its tasks use the global model"
                            : "no model scores its tasks (train with --mode both for a fallback)");
        continue;
      }
      const bool fineTune = request.clusterInit == ClusterInit::Global;
      MlpCostModel model =
          fineTune ? *global
                   : MlpCostModel(architecture,
                                  request.training.seed + static_cast<std::uint64_t>(cluster) + 1);
      const ModelData data{selectPrograms(dataset, clusterTraining),
                           selectPrograms(dataset, clusterValidation)};
      nlohmann::ordered_json summary = trainOne(name, model, data, request.training, !fineTune);
      summary["cluster"] = cluster;
      summary["initialised_from"] = fineTune ? "global" : "scratch";
      models.push_back(summary);
      saveMlpCostModel(outputPath(name + ".onnx"), model, fileMetadata);
    }
    for (std::size_t cluster = 0; cluster < clusters->centroids.size(); ++cluster)
      radii.push_back(cluster < clusters->clusters.size() ? clusters->clusters[cluster].radius
                                                          : 0.0);
    meta["routing"] = {{"radius_factor", kDefaultRoutingRadiusFactor},
                       {"assign", clusters->assign},
                       {"centroids", clusters->centroids},
                       {"radii", radii}};
  } else {
    meta["routing"] = nullptr;
  }
  meta["models"] = models;
  meta["seconds"] = secondsSince(start);
  OutputFile metaFile(outputPath("meta.json"));
  metaFile.stream() << meta.dump(2) << '\n';
  metaFile.commit();
  return meta;
}

} // namespace clustune::costmodel
