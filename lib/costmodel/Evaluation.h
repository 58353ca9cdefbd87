// What clustune-eval does, as a library call: score every valid record of the given tasks with
// the model a cost-model directory routes its task to, then compute Tenset's metrics over all
// tasks, per routed model, and per corpus model (with the network-level top-1 and top-5 scores).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace clustune::costmodel {

struct EvaluationRequest {
  std::string modelDirectory = {};
  std::vector<std::string> recordFiles = {};
  std::string taskFile = {};
  std::string corpusModel = {}; // empty: every task; else only the tasks of this corpus model
  // When set, the features and scores of up to `caseLimit` programs are written here as
  // check cases for scripts/check_costmodel_onnx.py.
  std::string casesPath = {};
  std::size_t caseLimit = 32;
  // When set, every scored program as {"task", "cost", "score", "route"} per line, so that
  // metrics can be recomputed outside clustune.
  std::string scoresPath = {};
  // When set, embeddings.jsonl of the evaluated tasks: a task the clustering did not see is
  // routed by its embedding, as the tuner routes it, and may fall back to the global model.
  std::string embeddingsPath = {};
};

// {"overall": metrics, "by_route": {"global": metrics, ...}, "routing": {"assigned": tasks, ...},
// "networks": [{"model", "tasks", "top1", "top5"}], "data": counts}; docs/metrics.md.
nlohmann::ordered_json evaluateCostModels(const EvaluationRequest& request);

} // namespace clustune::costmodel
