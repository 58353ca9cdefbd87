// clustune-run: compiles every task of a model (tuned schedules from a tuning log where given,
// default schedules otherwise), runs the whole model on seeded random inputs and weights, and
// reports latency; --check compares the outputs with a reference (executor/ReferenceKernel.h).
//   clustune-run MODEL.onnx [--batch N] [--log tuning.jsonl] [--repeat R] [--threads T]
//                [--check] [--per-task] [--seed S] [--save-weights FILE.onnx] [--json]
//   clustune-run MODEL.onnx --target configs/targets/nvidia-h200.json --emit-ptx DIR [--json]
// With a CUDA target the model runs on the GPU (device 0), or --emit-ptx writes the kernels' PTX
// (no GPU needed); a machine without the NVIDIA driver says so first.
#include "codegen/Target.h"
#include "executor/CompiledKernel.h"
#include "executor/GpuModelExecutor.h"
#include "executor/ModelBenchmark.h"
#include "executor/PtxExport.h"
#include "executor/ReferenceKernel.h"
#include "executor/TuningLog.h"
#include "graph/BlockedLayout.h"
#include "graph/Simplify.h"
#include "graph/Weights.h"
#include "onnx/Importer.h"
#include "onnx/ModelTasks.h"
#include "onnx/ModelWriter.h"
#include "onnx/TensorFile.h"
#include "runtime/ThreadPool.h"
#include "runtime/cuda/CudaDriver.h"
#include "support/Error.h"
#include "support/Random.h"
#include "support/Statistics.h"
#include "support/ToolMain.h"

#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>
#include <thread>

using namespace clustune;

namespace {

// The CUDA target: every task's PTX into `directory`, with the tuning log's schedules where it
// has them.
int emitPtx(const std::string& modelPath, const onnx_import::ImportOptions& options,
            std::int64_t channelBlock, const std::string& targetPath, const std::string& logPath,
            const std::string& directory, bool json) {
  const codegen::CudaTarget target = codegen::loadCudaTarget(targetPath);
  const onnx_import::ModelTasks model =
      onnx_import::partitionModelFile(modelPath, options, channelBlock);
  executor::ScheduleCoverage coverage(logPath, /*gpu=*/true);
  const nlohmann::ordered_json tasks =
      executor::exportPtx(model.tasks, target, coverage.lookup(), directory);
  coverage.warnIfIncomplete();
  std::size_t kernels = 0, tuned = 0;
  for (const auto& task : tasks) {
    kernels += task["kernels"].size();
    tuned += task["tuned"].get<bool>() ? 1 : 0;
  }
  if (json) {
    nlohmann::ordered_json result{{"model", model.model},  {"arch", target.arch},
                                  {"tasks", tasks.size()}, {"kernels", kernels},
                                  {"tuned_tasks", tuned},  {"directory", directory},
                                  {"per_task", tasks}};
    std::printf("%s\n", result.dump().c_str());
  } else {
    std::printf("model %s: %zu tasks (%zu tuned), %zu kernels of PTX for %s in %s\n",
                model.model.c_str(), tasks.size(), tuned, kernels, target.arch.c_str(),
                directory.c_str());
  }
  return 0;
}

// Runs the reference executor (on the CPU) and compares `outputs` with its outputs: the report's
// "check" object.
nlohmann::ordered_json checkOutputs(const std::vector<te::TensorData>& outputs,
                                    const graph::Graph& reference,
                                    const std::vector<te::TensorData>& inputs,
                                    const codegen::CpuTarget& target,
                                    std::int64_t interpreterMaxFlops) {
  const auto start = std::chrono::steady_clock::now();
  executor::ReferenceKernelFactory referenceKernels(target, interpreterMaxFlops);
  executor::ModelExecutor referenceExecutor(reference, referenceKernels);
  const auto comparison = executor::compareOutputs(outputs, referenceExecutor.run(inputs));
  nlohmann::ordered_json check = {
      {"passed", comparison.withinTolerance},
      {"max_abs_error", comparison.maxAbsoluteError},
      {"max_rel_error", comparison.maxRelativeError},
      {"interpreted_tasks", referenceKernels.interpretedTasks()},
      {"naive_schedule_tasks", referenceKernels.compiledTasks()},
      {"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()}};
  if (!comparison.withinTolerance)
    check["first_mismatch"] = comparison.firstMismatch;
  return check;
}

void printCheck(const nlohmann::ordered_json& check) {
  const bool passed = check["passed"].get<bool>();
  std::printf("check: %s (max abs error %.3g, max rel error %.3g; reference: %d tasks "
              "interpreted, %d naive schedules, %.1f s)%s%s\n",
              passed ? "passed" : "FAILED", check["max_abs_error"].get<double>(),
              check["max_rel_error"].get<double>(), check["interpreted_tasks"].get<int>(),
              check["naive_schedule_tasks"].get<int>(), check["seconds"].get<double>(),
              passed ? "" : ": ", passed ? "" : check["first_mismatch"].get<std::string>().c_str());
}

void printTaskTimes(const executor::LatencyReport& report) {
  std::printf("%-16s  %-18s  %5s  %10s  %6s\n", "task", "anchor", "count", "ms/run", "share");
  for (const auto& task : report.tasks)
    std::printf("%-16s  %-18s  %5d  %10.3f  %5.1f%%\n", task.key.c_str(), task.anchor.c_str(),
                task.occurrences, task.medianSeconds * 1e3,
                100.0 * task.medianSeconds / report.medianSeconds);
}

nlohmann::ordered_json taskTimesJson(const executor::LatencyReport& report) {
  nlohmann::ordered_json tasks = nlohmann::ordered_json::array();
  for (const auto& task : report.tasks)
    tasks.push_back({{"key", task.key},
                     {"anchor", task.anchor},
                     {"occurrences", task.occurrences},
                     {"ms", task.medianSeconds * 1e3}});
  return tasks;
}

struct GpuRunOptions {
  int repeat = 10;
  bool perTask = false;
  bool json = false;
  const graph::Graph* reference = nullptr; // with --check: the model, for the CPU's reference
  codegen::CpuTarget referenceTarget;
  std::int64_t interpreterMaxFlops = 0;
  const executor::ScheduleCoverage* coverage = nullptr; // what the log answered
};

// The whole model on the GPU: latency by CUDA events with the data on the device, and with
// --check the outputs against the CPU's reference.
int runOnGpu(graph::Graph model, const codegen::CudaTarget& target,
             runtime::cuda::CudaDriver& driver, const executor::ScheduleLookup& tuned,
             const std::vector<te::TensorData>& inputs, const GpuRunOptions& options) {
  const std::vector<runtime::cuda::CudaDevice> devices = driver.devices();
  if (devices.empty())
    throw Error("CUDA is unavailable on this machine: the driver sees no GPU");
  const auto session = driver.session(0);
  executor::GpuModelExecutor executor(std::move(model), target, *session, tuned);
  if (options.coverage)
    options.coverage->warnIfIncomplete();
  const auto report =
      executor::measureGpuLatency(executor, inputs, options.repeat, options.perTask);
  nlohmann::ordered_json result;
  result["model"] = executor.model().name;
  result["target"] = "cuda -arch=" + target.arch;
  result["device"] = devices[0].name;
  result["repeat"] = options.repeat;
  result["latency_ms"] = {{"median", report.medianSeconds * 1e3}, {"p90", report.p90Seconds * 1e3}};
  result["throughput_per_s"] = 1.0 / report.medianSeconds;
  result["tasks"] = executor.occurrences().size();
  result["kernels"] = executor.kernelModules();
  result["tuned_kernels"] = executor.tunedModules();
  result["compile_s"] = {{"median", median(executor.compileSeconds())},
                         {"total", std::accumulate(executor.compileSeconds().begin(),
                                                   executor.compileSeconds().end(), 0.0)}};
  result["device_mib"] = static_cast<double>(executor.deviceBytes()) / (1 << 20);
  bool passed = true;
  if (options.reference) {
    result["check"] = checkOutputs(executor.run(inputs), *options.reference, inputs,
                                   options.referenceTarget, options.interpreterMaxFlops);
    passed = result["check"]["passed"].get<bool>();
  }
  if (options.perTask)
    result["per_task"] = taskTimesJson(report);
  if (options.json) {
    std::printf("%s\n", result.dump().c_str());
  } else {
    std::printf("model %s on %s (%s): %zu tasks, %zu kernel modules (%zu tuned), %.1f MiB on the "
                "GPU\n",
                executor.model().name.c_str(), devices[0].name.c_str(), target.arch.c_str(),
                executor.occurrences().size(), executor.kernelModules(), executor.tunedModules(),
                result["device_mib"].get<double>());
    std::printf("compile: median %.1f ms per task, %.2f s total\n",
                result["compile_s"]["median"].get<double>() * 1e3,
                result["compile_s"]["total"].get<double>());
    std::printf(
        "latency: median %.3f ms, p90 %.3f ms over %d runs (GPU time); throughput %.1f /s\n",
        report.medianSeconds * 1e3, report.p90Seconds * 1e3, options.repeat,
        1.0 / report.medianSeconds);
    if (options.reference)
      printCheck(result["check"]);
    if (options.perTask)
      printTaskTimes(report);
  }
  if (!passed)
    throw Error("outputs differ from the reference: " +
                result["check"]["first_mismatch"].get<std::string>());
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"Compile every task of an ONNX model, run the model and report its latency."};
  CommonOptions common;
  std::string modelPath, logPath, saveWeightsPath, targetName = "host";
  std::optional<std::int64_t> batch;
  std::vector<std::string> inputShapes;
  int repeat = 10;
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  bool check = false, perTask = false, json = false, noIsolation = false;
  double checkInterpreterMflops = 50;
  std::string saveTensorsDirectory, inputsDirectory, emitPtxDirectory, layout = "NCHW";
  app.add_option("model", modelPath, "ONNX model ('-' reads it from stdin)")->required();
  app.add_option("--batch", batch, "Value for dynamic batch dimensions")
      ->check(CLI::PositiveNumber);
  app.add_option("--input-shape", inputShapes, "Set a graph input's shape, NAME=D1xD2x...");
  app.add_option("--log", logPath,
                 "Tuning log (records.jsonl): use each task's fastest valid schedule");
  app.add_option("--layout", layout,
                 "Convolution layout: NCHW, or blocked NCHW<x>c such as NCHW16c (tasks then have "
                 "other keys: tune with the same --layout)")
      ->capture_default_str();
  app.add_option("--repeat", repeat, "Timed runs after one warm-up run")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--threads", threads, "Threads for parallel loops")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--target", targetName, "'host', or a target description configs/targets/*.json")
      ->capture_default_str();
  app.add_flag("--no-isolation", noIsolation,
               "Skip the first run of every kernel in the isolated worker process (a faulting "
               "kernel then takes clustune-run down)");
  app.add_flag("--check", check,
               "Compare the outputs with a reference: the interpreter for small tasks, the "
               "compiled naive schedule for the others (see --check-interpreter-mflops)");
  app.add_option("--check-interpreter-mflops", checkInterpreterMflops,
                 "With --check, tasks of at most this many MFLOPs are evaluated by the "
                 "interpreter, larger ones by the naive schedule (0: the interpreter for every "
                 "task, independent of code generation but minutes for large models)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_flag("--per-task", perTask, "Add the time of each task");
  app.add_option("--save-weights", saveWeightsPath,
                 "Write the model with the weights it ran with (for other runtimes)");
  app.add_option("--save-tensors", saveTensorsDirectory,
                 "Write the inputs and outputs of one run as input_<i>.pb and output_<i>.pb "
                 "(TensorProto files) into this existing folder");
  app.add_option("--inputs", inputsDirectory,
                 "Read the model inputs from input_<i>.pb (TensorProto files) in this folder "
                 "instead of generating them");
  app.add_option("--emit-ptx", emitPtxDirectory,
                 "With a CUDA --target: write every task's PTX as DIR/<task key>.ptx instead of "
                 "running (needs no GPU)");
  app.add_flag("--json", json, "Print one JSON object instead of a report");
  addCommonOptions(app, common, /*withSeed=*/true);

  return runTool(app, common, argc, argv, [&] {
    const auto options = onnx_import::importOptionsFromFlags(batch, inputShapes);
    const std::int64_t channelBlock = onnx_import::channelBlockFromFlag(layout);
    const bool cuda = targetName != "host" && codegen::targetKind(targetName) == "cuda";
    if (!emitPtxDirectory.empty() && !cuda)
      throw Error("--emit-ptx needs a CUDA --target, such as configs/targets/nvidia-h200.json");
    if (cuda && !emitPtxDirectory.empty())
      return emitPtx(modelPath, options, channelBlock, targetName, logPath, emitPtxDirectory, json);
    std::unique_ptr<runtime::cuda::CudaDriver> driver;
    if (cuda)
      driver = runtime::cuda::CudaDriver::open(); // says why CUDA is unavailable here, first
    const codegen::Target target = codegen::resolveTarget(targetName);
    runtime::ThreadPool::global().setThreadCount(threads);

    graph::Graph model = onnx_import::importModel(modelPath, options);
    const int generated = graph::generateMissingWeights(model, common.seed);
    spdlog::info("{}: generated {} weights (seed {})", model.name, generated, common.seed);
    if (!saveWeightsPath.empty())
      onnx_import::saveModelWithWeights(modelPath, model, saveWeightsPath);
    graph::simplify(model);

    executor::ScheduleCoverage coverage(logPath, target.gpu.has_value());
    const executor::ScheduleLookup tuned = coverage.lookup();
    std::vector<te::TensorData> inputs;
    if (inputsDirectory.empty()) {
      inputs = executor::randomModelInputs(model, common.seed);
    } else {
      for (std::size_t i = 0; i < model.inputs.size(); ++i)
        inputs.push_back(
            onnx_import::readTensorFile(inputsDirectory + "/input_" + std::to_string(i) + ".pb")
                .data);
    }
    // The reference stays in NCHW, so that --check also checks the blocked layout's rewrite.
    const graph::Graph reference = check ? model : graph::Graph{};
    const auto blocking = graph::convertToBlockedLayout(model, channelBlock);
    if (channelBlock)
      spdlog::info("{}: {} convolutions ({} depthwise), {} element-wise, {} pooling and {} "
                   "concatenation nodes in {}; {} layout transforms",
                   model.name, blocking.convolutions, blocking.depthwise, blocking.elementwise,
                   blocking.pooling, blocking.concatenations,
                   graph::channelLayoutName(channelBlock), blocking.transforms);
    if (target.gpu)
      return runOnGpu(
          std::move(model), *target.gpu, *driver, tuned, inputs,
          {.repeat = repeat,
           .perTask = perTask,
           .json = json,
           .reference = check ? &reference : nullptr,
           .referenceTarget = target.cpu,
           .interpreterMaxFlops = static_cast<std::int64_t>(checkInterpreterMflops * 1e6),
           .coverage = &coverage});
    executor::CompiledKernelFactory factory(target.cpu, tuned, /*isolate=*/!noIsolation);
    executor::ModelExecutor executor(std::move(model), factory);
    coverage.warnIfIncomplete();
    const auto report = executor::measureLatency(executor, inputs, repeat, perTask);
    if (!saveTensorsDirectory.empty()) {
      const auto outputs = executor.run(inputs);
      const graph::Graph& graph = executor.model();
      for (std::size_t i = 0; i < inputs.size(); ++i)
        onnx_import::writeTensorFile(saveTensorsDirectory + "/input_" + std::to_string(i) + ".pb",
                                     graph.values[graph.inputs[i]].name, inputs[i]);
      for (std::size_t i = 0; i < outputs.size(); ++i)
        onnx_import::writeTensorFile(saveTensorsDirectory + "/output_" + std::to_string(i) + ".pb",
                                     graph.values[graph.outputs[i]].name, outputs[i]);
    }

    nlohmann::ordered_json result;
    result["model"] = executor.model().name;
    result["threads"] = threads;
    result["repeat"] = repeat;
    result["latency_ms"] = {{"median", report.medianSeconds * 1e3},
                            {"p90", report.p90Seconds * 1e3}};
    result["throughput_per_s"] = 1.0 / report.medianSeconds;
    result["tasks"] = executor.occurrences().size();
    result["kernels"] = factory.compileSeconds().size();
    result["tuned_kernels"] = coverage.covered();
    result["compile_s"] = {{"median", median(factory.compileSeconds())},
                           {"total", std::accumulate(factory.compileSeconds().begin(),
                                                     factory.compileSeconds().end(), 0.0)}};
    result["arena_mib"] = static_cast<double>(executor.arenaBytes()) / (1 << 20);
    bool passed = true;
    if (check) {
      result["check"] = checkOutputs(executor.run(inputs), reference, inputs, target.cpu,
                                     static_cast<std::int64_t>(checkInterpreterMflops * 1e6));
      passed = result["check"]["passed"].get<bool>();
    }
    if (perTask)
      result["per_task"] = taskTimesJson(report);
    if (json) {
      std::printf("%s\n", result.dump().c_str());
    } else {
      std::printf("model %s: %zu tasks, %zu kernels (%zu tuned), %d threads, arena %.1f MiB\n",
                  result["model"].get<std::string>().c_str(), executor.occurrences().size(),
                  factory.compileSeconds().size(), coverage.covered(), threads,
                  result["arena_mib"].get<double>());
      std::printf("compile: median %.1f ms per kernel, %.2f s total\n",
                  result["compile_s"]["median"].get<double>() * 1e3,
                  result["compile_s"]["total"].get<double>());
      std::printf("latency: median %.3f ms, p90 %.3f ms over %d runs; throughput %.1f /s\n",
                  report.medianSeconds * 1e3, report.p90Seconds * 1e3, repeat,
                  1.0 / report.medianSeconds);
      if (check)
        printCheck(result["check"]);
      if (perTask)
        printTaskTimes(report);
    }
    if (!passed)
      throw Error("outputs differ from the reference interpreter: " +
                  result["check"]["first_mismatch"].get<std::string>());
    return 0;
  });
}
