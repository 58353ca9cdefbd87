// clustune-partition: ONNX models -> tuning tasks (fused subgraphs) as tasks.jsonl.
//   clustune-partition MODEL.onnx... [-o tasks.jsonl] [--batch N] [--input-shape NAME=SHAPE]...
//                      [--summary]
// Equal subgraphs across the given models are merged into one task with per-model weights.
#include "graph/Partition.h"
#include "graph/Task.h"
#include "onnx/ModelTasks.h"
#include "support/Files.h"
#include "support/Jsonl.h"
#include "support/Progress.h"
#include "support/ToolMain.h"

#include <cstdio>
#include <spdlog/spdlog.h>

using namespace clustune;

namespace {

struct ModelSummary {
  std::string name;
  std::size_t tasks = 0;
  std::int64_t weightedFlops = 0;
};

// The table goes to `out`: stdout, or stderr when the JSONL itself goes to stdout.
void printSummary(std::FILE* out, const std::vector<graph::Task>& tasks,
                  const std::vector<ModelSummary>& models) {
  std::int64_t totalFlops = 0;
  for (const auto& task : tasks)
    totalFlops += task.totalWeight() * task.flops;
  std::fprintf(out, "%-16s  %-18s  %-22s  %6s  %14s  %6s\n", "task", "anchor", "output shape",
               "weight", "flops", "share");
  for (const auto& task : tasks) {
    const auto& output = task.outputs.front();
    const graph::Shape& shape = output.kind == graph::TaskValueRef::Kind::Node
                                    ? task.nodes[output.index].outputShapes[output.output]
                                    : task.inputs[output.index].shape;
    const double share = totalFlops > 0
                             ? 100.0 * static_cast<double>(task.totalWeight() * task.flops) /
                                   static_cast<double>(totalFlops)
                             : 0.0;
    std::fprintf(out, "%-16s  %-18s  %-22s  %6lld  %14lld  %5.1f%%\n", task.key.c_str(),
                 task.anchor.c_str(), graph::shapeToString(shape).c_str(),
                 static_cast<long long>(task.totalWeight()), static_cast<long long>(task.flops),
                 share);
  }
  for (const auto& model : models)
    std::fprintf(out, "model %s: %zu tasks, %lld FLOPs (sum of weight x task FLOPs)\n",
                 model.name.c_str(), model.tasks, static_cast<long long>(model.weightedFlops));
  std::fprintf(out, "total: %zu distinct tasks\n", tasks.size());
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Partition ONNX models into tuning tasks (fused subgraphs), written as tasks.jsonl.\n"
      "Equal subgraphs across the models share one task with per-model weights."};
  CommonOptions common;
  std::vector<std::string> modelPaths;
  std::string outputPath;
  std::optional<std::int64_t> batch;
  std::vector<std::string> inputShapes;
  bool summary = false;
  std::string layout = "NCHW";
  app.add_option("models", modelPaths, "ONNX model files ('-' reads one from stdin)")->required();
  app.add_option("-o,--output", outputPath,
                 "Write tasks.jsonl here ('-' for stdout; the default unless --summary)");
  app.add_option("--batch", batch, "Value for dynamic batch dimensions (axis 0 of graph inputs)")
      ->check(CLI::PositiveNumber);
  app.add_option("--input-shape", inputShapes,
                 "Set a graph input's shape, NAME=D1xD2x... (repeatable)");
  app.add_option("--layout", layout,
                 "Convolution layout: NCHW, or blocked NCHW<x>c such as NCHW16c for AVX-512 "
                 "(ConvNCHWc and LayoutTransform tasks; docs/formats.md)")
      ->capture_default_str();
  app.add_flag("--summary", summary,
               "Print a table of the tasks (key, anchor op, shape, weight, share of FLOPs)");
  addCommonOptions(app, common, /*withSeed=*/false);

  return runTool(app, common, argc, argv, [&] {
    const auto options = onnx_import::importOptionsFromFlags(batch, inputShapes);
    const std::int64_t channelBlock = onnx_import::channelBlockFromFlag(layout);
    if (outputPath.empty() && !summary)
      outputPath = "-";

    std::vector<graph::Task> allTasks;
    std::vector<ModelSummary> models;
    Progress progress("partition", modelPaths.size());
    for (const auto& path : modelPaths) {
      onnx_import::ModelTasks model = onnx_import::partitionModelFile(path, options, channelBlock);
      ModelSummary modelSummary{model.model, model.tasks.size(), 0};
      for (const auto& task : model.tasks)
        modelSummary.weightedFlops += task.flops * task.totalWeight();
      spdlog::info("{}: {} nodes -> {} tasks, {:.3g} GFLOPs", path, model.nodes, model.tasks.size(),
                   static_cast<double>(modelSummary.weightedFlops) * 1e-9);
      models.push_back(modelSummary);
      for (auto& task : model.tasks)
        allTasks.push_back(std::move(task));
      progress.advance();
    }
    progress.finish();
    auto merged = graph::mergeTasks(std::move(allTasks));
    if (!outputPath.empty()) {
      OutputFile output(outputPath);
      JsonlWriter writer(output.stream());
      for (const auto& task : merged)
        writer.write(graph::taskToJson(task));
      output.commit();
    }
    if (summary)
      printSummary(outputPath == "-" ? stderr : stdout, merged, models);
    return 0;
  });
}
