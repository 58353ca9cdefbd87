// clustune-eval: Tenset's metrics for a cost-model directory on measured records (RMSE, R²,
// pairwise accuracy, peak score@1/@5, top-k recall, and the network-level top-1 and top-5
// scores per corpus model); a table, or one JSON object with --json. docs/metrics.md.
//   clustune-eval costmodel/ RECORDS... --tasks tasks.jsonl [--model NAME] [--json]
//                 [--embeddings embeddings.jsonl]
#include "costmodel/Evaluation.h"
#include "support/ToolMain.h"

#include <fmt/format.h>
#include <iostream>

using namespace clustune;

namespace {

std::string formatMetric(const nlohmann::ordered_json& metrics, const char* key) {
  if (metrics.is_null() || !metrics.contains(key))
    return "-";
  return fmt::format("{:.4f}", metrics[key].get<double>());
}

void printTable(const nlohmann::ordered_json& result) {
  const auto& data = result["data"];
  fmt::print("{} programs of {} tasks ({} records; skipped: {} failed, {} unknown tasks)\n\n",
             data["programs"].get<std::size_t>(), data["tasks"].get<std::size_t>(),
             data["records"].get<std::size_t>(), data["skipped_errors"].get<std::size_t>(),
             data["skipped_unknown_tasks"].get<std::size_t>());
  fmt::print("{:<12} {:>6} {:>8} {:>8} {:>8} {:>9} {:>8} {:>8} {:>10}\n", "model", "tasks",
             "programs", "rmse", "r2", "pairwise", "peak@1", "peak@5", "recall@10");
  auto row = [](const std::string& name, const nlohmann::ordered_json& metrics) {
    if (metrics.is_null()) {
      fmt::print("{:<12} (too few programs to rank)\n", name);
      return;
    }
    fmt::print("{:<12} {:>6} {:>8} {:>8} {:>8} {:>9} {:>8} {:>8} {:>10}\n", name,
               metrics["tasks"].get<std::size_t>(), metrics["programs"].get<std::size_t>(),
               formatMetric(metrics, "rmse"), formatMetric(metrics, "r2"),
               formatMetric(metrics, "pairwise_accuracy"), formatMetric(metrics, "peak_score_1"),
               formatMetric(metrics, "peak_score_5"), formatMetric(metrics, "top_k_recall"));
  };
  row("all", result["overall"]);
  for (const auto& [route, metrics] : result["by_route"].items())
    row(route, metrics);
  const auto& routing = result["routing"];
  const std::size_t byEmbedding = routing["nearest_centroid"].get<std::size_t>() +
                                  routing["far_from_every_cluster"].get<std::size_t>();
  if (byEmbedding > 0)
    fmt::print("\nrouting: {} tasks assigned by the clustering, {} unseen routed to their nearest "
               "cluster, {} unseen far from every cluster (global model)\n",
               routing["assigned"].get<std::size_t>(),
               routing["nearest_centroid"].get<std::size_t>(),
               routing["far_from_every_cluster"].get<std::size_t>());
  fmt::print("\n{:<22} {:>6} {:>9} {:>8} {:>8}\n", "network", "tasks", "measured", "top-1",
             "top-5");
  for (const auto& network : result["networks"])
    fmt::print("{:<22} {:>6} {:>9} {:>8.4f} {:>8.4f}\n", network["model"].get<std::string>(),
               network["tasks"].get<std::size_t>(), network["tasks_measured"].get<std::size_t>(),
               network["top1"].get<double>(), network["top5"].get<double>());
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"Evaluate a cost-model directory on measured records with Tenset's metrics."};
  CommonOptions common;
  costmodel::EvaluationRequest request;
  bool json = false;
  app.add_option("models", request.modelDirectory, "Cost-model directory from clustune-train")
      ->required();
  app.add_option("records", request.recordFiles, "records.jsonl files ('-' reads stdin)")
      ->required();
  app.add_option("--tasks", request.taskFile, "tasks.jsonl the records were measured from")
      ->required();
  app.add_option("--model", request.corpusModel, "Evaluate only the tasks of this corpus model");
  app.add_flag("--json", json, "Print one JSON object instead of a table");
  app.add_option("--dump-cases", request.casesPath,
                 "Write features and scores of a few programs as check cases "
                 "(scripts/check_costmodel_onnx.py)");
  app.add_option("--dump-scores", request.scoresPath,
                 "Write every program's task, cost, score and model as JSON Lines");
  app.add_option("--embeddings", request.embeddingsPath,
                 "embeddings.jsonl: route tasks the clustering did not see by their embedding");
  addCommonOptions(app, common, /*withSeed=*/false);

  return runTool(app, common, argc, argv, [&] {
    const nlohmann::ordered_json result = costmodel::evaluateCostModels(request);
    if (json)
      std::cout << result.dump() << '\n';
    else
      printTable(result);
    return 0;
  });
}
