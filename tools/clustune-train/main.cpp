// clustune-train: trains Tenset's MLP cost model on measured records, as one global model, one
// model per cluster of clusters.json (from scratch or fine-tuned from the global one), or both,
// and writes a cost-model directory (global.onnx, cluster-<i>.onnx, meta.json). docs/costmodel.md.
//   clustune-train RECORDS... --tasks tasks.jsonl [--clusters clusters.json]
//                  [--mode global|cluster|both] [--cluster-init scratch|global]
//                  [--holdout-model NAME] [--global-from costmodel/]
//                  [--loss lambdarank|mse|ranknet] -o costmodel/
#include "costmodel/TrainCostModels.h"
#include "support/Error.h"
#include "support/ToolMain.h"

#include <iostream>

using namespace clustune;

int main(int argc, char** argv) {
  CLI::App app{"Train MLP cost models (global and per cluster) on measured records."};
  CommonOptions common;
  costmodel::TrainRequest request;
  std::string mode = "global", clusterInit = "global", loss = "lambdarank", schedule = "constant";
  app.add_option("records", request.recordFiles,
                 "records.jsonl files from clustune-measure ('-' reads stdin)")
      ->required();
  app.add_option("--tasks", request.taskFile, "tasks.jsonl the records were measured from")
      ->required();
  app.add_option("-o,--output", request.outputDirectory, "Cost-model directory to write")
      ->required();
  app.add_option("--clusters", request.clusterFile, "clusters.json from clustune-cluster");
  app.add_option("--mode", mode, "global, cluster or both")->capture_default_str();
  app.add_option("--cluster-init", clusterInit,
                 "Per-cluster models start from 'scratch' or from the 'global' model")
      ->capture_default_str();
  app.add_option("--global-from", request.globalFrom,
                 "Cost-model directory whose global model is taken instead of trained, for "
                 "--mode both or cluster (same --holdout-model and width)");
  app.add_option("--holdout-model", request.holdoutModel,
                 "Leave out every task that occurs in this corpus model (for evaluation)");
  app.add_option("--loss", loss, "lambdarank, mse or ranknet")->capture_default_str();
  app.add_option("--epochs", request.training.epochs, "Maximum epochs")->capture_default_str();
  app.add_option("--batch", request.training.batchPrograms, "Programs per batch")
      ->capture_default_str();
  app.add_option("--learning-rate", request.training.adam.learningRate, "Adam's learning rate")
      ->capture_default_str();
  app.add_option("--schedule", schedule,
                 "Learning rate over the epochs: constant, or cosine (decays to 0 at --epochs)")
      ->capture_default_str();
  app.add_option("--patience", request.training.patience,
                 "Epochs without a better validation loss before stopping (0: epochs / 6)")
      ->capture_default_str();
  app.add_option("--hidden", request.hidden, "Width of the encoder and residual layers")
      ->capture_default_str();
  app.add_option("--residual-blocks", request.residualBlocks, "Residual blocks after the sum")
      ->capture_default_str();
  app.add_option("--validation-fraction", request.validationFraction,
                 "Share of each task's programs held out for early stopping")
      ->capture_default_str();
  addCommonOptions(app, common, /*withSeed=*/true);

  return runTool(app, common, argc, argv, [&] {
    request.mode = costmodel::trainModeFromName(mode);
    request.clusterInit = costmodel::clusterInitFromName(clusterInit);
    request.training.loss = costmodel::lossKindFromName(loss);
    request.training.schedule = costmodel::learningRateScheduleFromName(schedule);
    request.training.seed = common.seed;
    if (request.training.epochs < 1 || request.training.batchPrograms < 2 ||
        request.training.patience < 0 || !(request.training.adam.learningRate > 0) ||
        request.hidden < 1 || request.residualBlocks < 0 ||
        !(request.validationFraction >= 0 && request.validationFraction < 1))
      throw Error("--epochs and --hidden must be at least 1, --batch at least 2, --patience and "
                  "--residual-blocks non-negative, --learning-rate positive and "
                  "--validation-fraction in [0, 1)");
    const nlohmann::ordered_json meta = costmodel::trainCostModels(request);
    std::cout << meta.dump() << '\n';
    return 0;
  });
}
