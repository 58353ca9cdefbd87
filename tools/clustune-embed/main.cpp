// clustune-embed: structural embeddings of tasks for clustering. Trains the graph autoencoder on
// the tasks' graphs (--train, reporting link-prediction AUC/AP on held-out edges and the
// feature reconstruction error) or loads a trained one (--model), then writes one embedding per
// task as JSON Lines on stdout. --method raw-mean is the ablation baseline without a GAE.
// docs/gae.md.
//   clustune-embed TASKS.jsonl... [--train --epochs E -o gae.onnx | --model gae.onnx]
//                  [--method gae|raw-mean] [--seed S] > embeddings.jsonl
#include "features/TaskGraph.h"
#include "gae/EmbedTasks.h"
#include "gae/GaeModelFile.h"
#include "gae/Training.h"
#include "graph/TaskFile.h"
#include "support/Error.h"
#include "support/ToolMain.h"

#include <cmath>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

using namespace clustune;

namespace {

// Tasks of every file, each key once (the same subgraph may appear in several files).
std::vector<graph::Task> readTasks(const std::vector<std::string>& paths) {
  std::vector<graph::Task> tasks;
  std::map<std::string, std::size_t> seen;
  for (const std::string& path : paths)
    for (graph::Task& task : graph::readTaskFile(path))
      if (seen.emplace(task.key, tasks.size()).second)
        tasks.push_back(std::move(task));
  if (tasks.empty())
    throw Error("no tasks to embed");
  return tasks;
}

gae::LoadedGae train(const std::vector<graph::Task>& tasks, const gae::GaeTrainingOptions& options,
                     const std::string& outputPath) {
  const std::vector<features::TaskGraph> graphs = gae::taskGraphsOf(tasks);
  const std::vector<const features::TaskGraph*> pointers = gae::graphPointers(graphs);
  spdlog::info("training the graph autoencoder on {} task graphs ({} epochs)", graphs.size(),
               options.epochs);
  const int logEvery = std::max(1, options.epochs / 20);
  gae::TrainedGae trained = gae::trainGae(pointers, options, [&](const gae::GaeEpochReport& epoch) {
    const bool show = epoch.epoch % logEvery == 0 || epoch.epoch == options.epochs;
    spdlog::log(show ? spdlog::level::info : spdlog::level::debug,
                "epoch {:>4}: loss {:.5f}, validation AUC {:.4f}, AP {:.4f}", epoch.epoch,
                epoch.loss, epoch.validationAuc, epoch.validationAveragePrecision);
  });
  const gae::GaeTrainingReport& report = trained.report;
  spdlog::info("held-out edges: AUC {:.4f}, AP {:.4f}; training edges: AUC {:.4f}; feature "
               "reconstruction MSE {:.4f} (standardised features); {:.1f} s",
               report.testAuc, report.testAveragePrecision, report.reconstructionAuc,
               report.featureReconstructionMse, report.seconds);
  const std::map<std::string, std::string> metadata = {
      {"clustune.tasks", std::to_string(tasks.size())},
      {"clustune.seed", std::to_string(options.seed)},
      {"clustune.epochs", std::to_string(report.epochs)},
      {"clustune.test_auc", std::to_string(report.testAuc)},
      {"clustune.test_average_precision", std::to_string(report.testAveragePrecision)},
      {"clustune.training_edge_auc", std::to_string(report.reconstructionAuc)},
      {"clustune.feature_reconstruction_mse", std::to_string(report.featureReconstructionMse)}};
  gae::saveGae(outputPath, trained.model, trained.standardizer, metadata);
  return gae::LoadedGae{std::move(trained.model), std::move(trained.standardizer), metadata};
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"Embed tasks with the graph autoencoder (or a baseline) for clustering."};
  CommonOptions common;
  std::vector<std::string> taskPaths;
  std::string modelPath, outputPath, method = "gae";
  bool trainModel = false;
  gae::GaeTrainingOptions options;
  app.add_option("tasks", taskPaths, "tasks.jsonl files ('-' reads stdin)")->required();
  app.add_flag("--train", trainModel, "Train a graph autoencoder on these tasks (needs -o)");
  app.add_option("-o,--output", outputPath, "Where --train writes the model (gae.onnx)");
  app.add_option("--model", modelPath, "A trained model to embed with");
  app.add_option("--method", method, "gae, or raw-mean: mean-pooled standardised node features")
      ->capture_default_str();
  app.add_option("--epochs", options.epochs, "Training epochs")->capture_default_str();
  app.add_option("--hidden", options.hidden, "Width of the first GCN layer")->capture_default_str();
  app.add_option("--latent", options.latent, "Width of the node embeddings")->capture_default_str();
  app.add_option("--learning-rate", options.learningRate, "Adam's learning rate")
      ->capture_default_str();
  app.add_option("--feature-weight", options.featureWeight,
                 "Weight of the feature-reconstruction loss")
      ->capture_default_str();
  app.add_option("--graphs-per-batch", options.graphsPerBatch,
                 "Graphs per training batch (0: all in one batch)")
      ->capture_default_str();
  addCommonOptions(app, common, /*withSeed=*/true);

  return runTool(app, common, argc, argv, [&] {
    options.seed = common.seed;
    if (method != "gae" && method != "raw-mean")
      throw Error("unknown --method '" + method + "' (expected gae or raw-mean)");
    if (method == "gae" && trainModel == !modelPath.empty())
      throw Error("give either --train (with -o gae.onnx) or --model gae.onnx");
    if (trainModel && outputPath.empty())
      throw Error("--train needs -o gae.onnx for the trained model");
    if (method == "raw-mean" && (trainModel || !modelPath.empty()))
      throw Error("--method raw-mean uses no model: drop --train and --model");
    if (options.epochs < 1 || options.hidden < 1 || options.latent < 1 ||
        !(options.learningRate > 0) || options.featureWeight < 0 || options.graphsPerBatch < 0)
      throw Error("--epochs, --hidden and --latent must be at least 1, --learning-rate positive, "
                  "--feature-weight and --graphs-per-batch non-negative");
    const std::vector<graph::Task> tasks = readTasks(taskPaths);
    std::vector<cluster::TaskEmbedding> embeddings;
    if (method == "raw-mean") {
      embeddings = gae::rawFeatureEmbeddings(tasks);
    } else {
      const gae::LoadedGae model =
          trainModel
              ? train(tasks, options, outputPath)
              : gae::loadGae(modelPath, static_cast<int>(features::taskGraphFeatureNames().size()));
      embeddings = gae::embedTasks(model, tasks);
    }
    for (const cluster::TaskEmbedding& embedding : embeddings)
      std::cout << cluster::embeddingLine(embedding) << '\n';
    spdlog::info("{} task embeddings of width {}", embeddings.size(),
                 embeddings.at(0).embedding.size());
    return 0;
  });
}
