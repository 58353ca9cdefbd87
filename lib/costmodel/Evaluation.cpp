#include "costmodel/Evaluation.h"

#include "costmodel/CostModelEnsemble.h"
#include "costmodel/Metrics.h"
#include "costmodel/ProgramDataset.h"
#include "graph/TaskFile.h"
#include "measure/RecordLog.h"
#include "support/Error.h"
#include "support/Files.h"

#include <map>
#include <set>
#include <spdlog/spdlog.h>

namespace clustune::costmodel {
namespace {

// The metrics of a set of tasks, or null when they cannot be computed (no task to rank).
nlohmann::ordered_json metricsOrNull(const std::vector<TaskPredictions>& tasks) {
  try {
    return metricSummaryToJson(summarise(tasks));
  } catch (const Error& error) {
    spdlog::debug("metrics skipped: {}", error.what());
    return nullptr;
  }
}

void writeCases(const std::string& path, const ProgramDataset& dataset,
                const std::vector<std::string>& routes, const std::vector<double>& scores,
                std::size_t limit) {
  OutputFile output(path);
  for (std::size_t program = 0; program < std::min(limit, dataset.programCount()); ++program) {
    const int begin = dataset.programOffsets[program];
    const int rows = dataset.programOffsets[program + 1] - begin;
    nlohmann::ordered_json statements = nlohmann::ordered_json::array();
    for (int row = begin; row < begin + rows; ++row) {
      const auto values = dataset.statements.row(row);
      statements.push_back(std::vector<float>(values.data(), values.data() + values.size()));
    }
    nlohmann::ordered_json entry;
    entry["model"] = routes[static_cast<std::size_t>(dataset.programTask[program])];
    entry["inputs"] = {{"statements", statements}};
    entry["outputs"] = {{"score", {{scores[program]}}}};
    output.stream() << entry.dump() << '\n';
  }
  output.commit();
}

} // namespace

nlohmann::ordered_json evaluateCostModels(const EvaluationRequest& request) {
  const CostModelEnsemble ensemble = CostModelEnsemble::load(request.modelDirectory);
  std::vector<graph::Task> tasks = graph::readTaskFile(request.taskFile);
  if (!request.corpusModel.empty()) {
    std::erase_if(tasks, [&](const graph::Task& task) {
      return task.weights.count(request.corpusModel) == 0;
    });
    if (tasks.empty())
      throw Error("no task of " + displayPath(request.taskFile) + " occurs in model '" +
                  request.corpusModel + "'");
  }
  std::vector<measure::Record> records;
  for (const std::string& file : request.recordFiles)
    measure::readRecords(file, [&](measure::Record&& record, const ErrorContext&) {
      records.push_back(std::move(record));
    });
  DatasetReport report;
  const ProgramDataset dataset = buildProgramDataset(tasks, records, &report);
  if (dataset.programCount() == 0)
    throw Error("no valid record of the evaluated tasks to score");

  std::map<std::string, std::vector<double>> embeddings;
  if (!request.embeddingsPath.empty())
    for (cluster::TaskEmbedding& embedding : cluster::readEmbeddingFile(request.embeddingsPath))
      embeddings.emplace(embedding.key, std::move(embedding.embedding));

  // Score each task's programs with its routed model.
  std::vector<std::string> routes;
  std::map<RouteReason, std::size_t> reasons;
  for (const std::string& key : dataset.taskKeys) {
    const auto embedding = embeddings.find(key);
    const RouteDecision decision =
        ensemble.decideRoute(key, embedding == embeddings.end() ? nullptr : &embedding->second);
    routes.push_back(decision.model);
    ++reasons[decision.reason];
  }
  std::vector<double> scores(dataset.programCount());
  std::vector<TaskPredictions> predictions(dataset.taskKeys.size());
  const std::vector<std::vector<std::size_t>> byTask = dataset.programsByTask();
  for (std::size_t task = 0; task < byTask.size(); ++task) {
    const std::vector<std::size_t>& programs = byTask[task];
    const ProgramDataset taskPrograms = selectPrograms(dataset, programs);
    const nn::Vector taskScores =
        ensemble.model(routes[task]).predict(taskPrograms.statements, taskPrograms.programOffsets);
    predictions[task].task = dataset.taskKeys[task];
    for (std::size_t index = 0; index < programs.size(); ++index) {
      scores[programs[index]] = taskScores(static_cast<Eigen::Index>(index));
      predictions[task].costs.push_back(dataset.costs[programs[index]]);
      predictions[task].scores.push_back(taskScores(static_cast<Eigen::Index>(index)));
    }
  }
  if (!request.casesPath.empty())
    writeCases(request.casesPath, dataset, routes, scores, request.caseLimit);
  if (!request.scoresPath.empty()) {
    OutputFile output(request.scoresPath);
    for (std::size_t program = 0; program < dataset.programCount(); ++program) {
      const auto task = static_cast<std::size_t>(dataset.programTask[program]);
      output.stream() << nlohmann::ordered_json{{"task", dataset.taskKeys[task]},
                                                {"cost", dataset.costs[program]},
                                                {"score", scores[program]},
                                                {"route", routes[task]}}
                             .dump()
                      << '\n';
    }
    output.commit();
  }

  nlohmann::ordered_json result;
  result["data"] = {{"records", report.records},
                    {"programs", report.programs},
                    {"tasks", report.tasks},
                    {"skipped_errors", report.skippedErrors},
                    {"skipped_unknown_tasks", report.skippedUnknownTasks},
                    {"skipped_unlowered", report.skippedUnloweredSchedules}};
  result["overall"] = metricsOrNull(predictions);
  std::map<std::string, std::vector<TaskPredictions>> byRoute;
  for (std::size_t task = 0; task < predictions.size(); ++task)
    byRoute[routes[task]].push_back(predictions[task]);
  result["by_route"] = nlohmann::ordered_json::object();
  for (const auto& [route, routed] : byRoute)
    result["by_route"][route] = metricsOrNull(routed);
  result["routing"] = nlohmann::ordered_json::object();
  for (RouteReason reason : {RouteReason::Assigned, RouteReason::NearestCentroid,
                             RouteReason::FarFromEveryCluster, RouteReason::Unassigned})
    result["routing"][routeReasonName(reason)] = reasons[reason];

  std::map<std::string, std::size_t> taskIndex;
  for (std::size_t index = 0; index < dataset.taskKeys.size(); ++index)
    taskIndex[dataset.taskKeys[index]] = index;
  std::set<std::string> corpusModels;
  for (const graph::Task& task : tasks)
    for (const auto& [model, weight] : task.weights)
      corpusModels.insert(model);
  if (!request.corpusModel.empty())
    corpusModels = {request.corpusModel};
  nlohmann::ordered_json networks = nlohmann::ordered_json::array();
  for (const std::string& model : corpusModels) {
    std::vector<WeightedTask> weighted;
    std::size_t modelTasks = 0;
    for (const graph::Task& task : tasks) {
      const auto weight = task.weights.find(model);
      if (weight == task.weights.end())
        continue;
      ++modelTasks;
      if (const auto found = taskIndex.find(task.key); found != taskIndex.end())
        weighted.push_back({&predictions[found->second], static_cast<double>(weight->second)});
    }
    if (weighted.empty())
      continue;
    networks.push_back({{"model", model},
                        {"tasks", modelTasks},
                        {"tasks_measured", weighted.size()},
                        {"top1", networkTopKScore(weighted, 1)},
                        {"top5", networkTopKScore(weighted, 5)}});
  }
  result["networks"] = networks;
  return result;
}

} // namespace clustune::costmodel
