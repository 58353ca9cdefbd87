// Running one model at one batch under each compiler of a sweep.
#include "bench/ModelSweep.h"

#include "codegen/cpu/CpuTarget.h"
#include "executor/CompiledKernel.h"
#include "executor/ModelBenchmark.h"
#include "executor/ModelExecutor.h"
#include "graph/BlockedLayout.h"
#include "graph/Simplify.h"
#include "graph/Weights.h"
#include "onnx/Importer.h"
#include "onnx/ModelWriter.h"
#include "onnx/TensorFile.h"
#include "runtime/ThreadPool.h"
#include "support/Error.h"
#include "support/Files.h"
#include "support/Statistics.h"

#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <spdlog/spdlog.h>

namespace clustune::bench {
namespace {

// The model with axis 0 of every graph input set to `batch`. The corpus models are exported
// at batch 1 with static shapes, so the batch replaces a fixed dimension, not only a dynamic
// one; shape inference then carries it through the graph.
graph::Graph importAtBatch(const std::string& path, std::int64_t batch) {
  graph::Graph probe;
  try {
    probe = onnx_import::importModel(path);
  } catch (const Error&) {
    // A dynamic batch dimension must be bound to import at all; that binding is the batch.
    return onnx_import::importModel(path, {.batch = batch});
  }
  onnx_import::ImportOptions options;
  for (graph::ValueId id : probe.inputs) {
    graph::Shape shape = probe.values[id].shape;
    if (shape.empty() || shape[0] == batch)
      continue;
    shape[0] = batch;
    options.inputShapes[probe.values[id].name] = shape;
  }
  return options.inputShapes.empty() ? probe : onnx_import::importModel(path, options);
}

BenchRow timedRow(BenchRow row, std::vector<double> runSeconds) {
  row.runSeconds = std::move(runSeconds);
  row.medianSeconds = quantile(row.runSeconds, 0.5);
  row.p90Seconds = quantile(row.runSeconds, 0.9);
  return row;
}

} // namespace

std::string modelName(const std::string& modelPath) {
  if (modelPath == "-")
    return "stdin";
  return std::filesystem::path(modelPath).stem().string();
}

std::string describeHostCpu() {
  std::string name = "unknown CPU";
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
      name = line.substr(line.find(':') + 1);
      name.erase(0, name.find_first_not_of(' '));
      break;
    }
  }
  return name + " (" + codegen::hostCpuTarget().cpu + ")";
}

ModelSweep::ModelSweep(std::vector<CompilerSpec> compilers, SweepSettings settings)
    : compilers_(std::move(compilers)), settings_(std::move(settings)), cpu_(describeHostCpu()) {
  for (const CompilerSpec& spec : compilers_) {
    if (spec.kind != CompilerKind::Tuned)
      continue;
    if (!std::filesystem::exists(spec.logPath))
      throw Error("tuned: the tuning log does not exist", {.file = spec.logPath});
    const auto& best = tunedLogs_[spec.name()] = executor::readBestSchedules(spec.logPath);
    spdlog::info("{}: {} tasks with schedules in {}", spec.name(), best.size(), spec.logPath);
  }
}

std::vector<BenchRow> ModelSweep::run(const std::string& modelPath, std::int64_t batch) {
  std::vector<BenchRow> rows;
  auto newRow = [&](const CompilerSpec& spec) {
    return BenchRow{.model = modelName(modelPath),
                    .batch = batch,
                    .compiler = spec.name(),
                    .threads = settings_.threads,
                    .cpu = cpu_};
  };
  graph::Graph model;
  try {
    model = importAtBatch(modelPath, batch);
  } catch (const Error& error) {
    for (const CompilerSpec& spec : compilers_) {
      BenchRow row = newRow(spec);
      row.status = RowStatus::Failed;
      row.reason = std::string("import at batch ") + std::to_string(batch) + ": " + error.what();
      rows.push_back(row);
    }
    return rows;
  }
  graph::generateMissingWeights(model, settings_.seed);
  const std::vector<te::TensorData> inputs = executor::randomModelInputs(model, settings_.seed);
  const graph::Graph unsimplified = model;
  graph::simplify(model);
  runtime::ThreadPool::global().setThreadCount(settings_.threads);

  std::optional<TemporaryFolder> peerFolder;               // written once, for the first peer
  std::optional<std::vector<te::TensorData>> firstOutputs; // of the first compiler that ran
  std::string firstCompiler;
  for (const CompilerSpec& spec : compilers_) {
    BenchRow row = newRow(spec);
    std::vector<te::TensorData> outputs;
    try {
      if (spec.isPeer()) {
        if (!peerFolder) {
          peerFolder.emplace("clustune-bench");
          onnx_import::saveModelWithWeights(modelPath, unsimplified,
                                            peerFolder->path() + "/model.onnx");
          for (std::size_t i = 0; i < inputs.size(); ++i)
            onnx_import::writeTensorFile(peerFolder->path() + "/input_" + std::to_string(i) + ".pb",
                                         model.values[model.inputs[i]].name, inputs[i]);
        }
        PeerResult peer = runPeer(spec.kind, peerFolder->path(), model.outputs.size(),
                                  {.script = settings_.peer.script,
                                   .python = settings_.peer.python,
                                   .threads = settings_.threads,
                                   .repeat = settings_.repeat});
        if (peer.status != RowStatus::Ok) {
          row.status = peer.status;
          row.reason = peer.reason;
          rows.push_back(row);
          continue;
        }
        row = timedRow(row, std::move(peer.runSeconds));
        outputs = std::move(peer.outputs);
      } else {
        std::set<std::string> missing;
        const auto* tuned =
            spec.kind == CompilerKind::Tuned ? &tunedLogs_.at(spec.name()) : nullptr;
        const executor::ScheduleLookup lookup =
            [&](const std::string& key) -> std::optional<std::vector<schedule::Step>> {
          if (!tuned)
            return std::nullopt;
          auto found = tuned->find(key);
          if (found == tuned->end()) {
            missing.insert(key);
            return std::nullopt;
          }
          return found->second.steps;
        };
        executor::CompiledKernelFactory factory(codegen::hostCpuTarget(), lookup,
                                                settings_.isolate);
        graph::Graph laidOut = model;
        graph::convertToBlockedLayout(laidOut, spec.channelBlock);
        executor::ModelExecutor executor(std::move(laidOut), factory);
        if (!missing.empty()) {
          // Never time a tuned model that silently fell back to default schedules.
          row.status = RowStatus::MissingTuning;
          row.missingTasks.assign(missing.begin(), missing.end());
          row.reason = std::to_string(missing.size()) + " of " +
                       std::to_string(executor.occurrences().size()) +
                       " tasks have no schedule in the tuning log at batch " +
                       std::to_string(batch);
          rows.push_back(row);
          continue;
        }
        const auto report =
            executor::measureLatency(executor, inputs, settings_.repeat, /*perTask=*/false);
        row = timedRow(row, report.runSeconds);
        row.tasks = static_cast<int>(executor.occurrences().size());
        row.distinctTasks = static_cast<int>(factory.compileSeconds().size());
        outputs = executor.run(inputs);
      }
    } catch (const Error& error) {
      row.status = RowStatus::Failed;
      row.reason = error.what();
      rows.push_back(row);
      continue;
    }
    if (firstOutputs) {
      const auto comparison = executor::compareOutputs(outputs, *firstOutputs);
      row.maxAbsDiff = comparison.maxAbsoluteError;
      row.outputsAgree = comparison.withinTolerance;
      if (!comparison.withinTolerance)
        spdlog::warn("{} at batch {}: {} outputs differ from {}'s: {}", row.model, batch,
                     row.compiler, firstCompiler, comparison.firstMismatch);
    } else {
      firstOutputs = std::move(outputs);
      firstCompiler = row.compiler;
    }
    rows.push_back(row);
  }
  return rows;
}

} // namespace clustune::bench
