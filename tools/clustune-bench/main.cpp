// clustune-bench: runs models across batch sizes under several "compilers" (clustune's default
// schedules, a tuning log, ONNX Runtime, PyTorch, TVM) with the same weights and inputs, writes
// one JSON line per (model, batch, compiler), computes batch-size friction metrics, and gates
// against a baseline for CI. See docs/bench.md.
//   clustune-bench MODEL.onnx... [--batch 1,2,4] [--compilers default,tuned:LOG,ort]
//                  [--repeat R] [--threads T] [-o bench.jsonl] [--metrics friction.json]
//                  [--baseline old.jsonl --max-slowdown 5%]
//   clustune-bench --depth-sweep FAMILY_d1.onnx FAMILY_d2.onnx... [flags as above]
//   clustune-bench --from bench.jsonl [--metrics friction.json] [--baseline old.jsonl ...]
// Exit status: 0, 1 on an error, 2 when the gate finds a regression.
#include "bench/BenchRow.h"
#include "bench/DepthSweep.h"
#include "bench/Friction.h"
#include "bench/ModelSweep.h"
#include "bench/RegressionGate.h"
#include "bench/SweepSpec.h"
#include "support/Error.h"
#include "support/ToolMain.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <spdlog/spdlog.h>
#include <thread>

using namespace clustune;

namespace {

// The peers of the default list that cannot run here are dropped with a note; a peer named in
// --compilers that cannot run is an error before anything is measured.
std::vector<bench::CompilerSpec> availableCompilers(std::vector<bench::CompilerSpec> compilers,
                                                    const bench::PeerSettings& peer) {
  std::vector<bench::CompilerSpec> available;
  for (const bench::CompilerSpec& spec : compilers) {
    if (spec.isPeer()) {
      const bench::PeerResult probe = bench::probePeer(spec.kind, peer);
      if (probe.status != bench::RowStatus::Ok) {
        if (spec.required)
          throw Error(spec.name() + " cannot run here: " + probe.reason);
        spdlog::warn("{} skipped: {}", spec.name(), probe.reason);
        continue;
      }
    }
    available.push_back(spec);
  }
  return available;
}

// The width of the compiler column: the longest name (default@NCHW16c, tuned@NCHW16c, ...).
template <typename Item>
int compilerWidth(const std::vector<Item>& items) {
  std::size_t width = 8;
  for (const Item& item : items)
    width = std::max(width, item.compiler.size());
  return static_cast<int>(width);
}

void printTable(const std::vector<bench::BenchRow>& rows) {
  const int width = compilerWidth(rows);
  std::fprintf(stderr, "%-20s %6s %-*s %12s %12s %14s  %s\n", "model", "batch", width, "compiler",
               "median ms", "p90 ms", "samples/s", "note");
  for (const bench::BenchRow& row : rows) {
    if (row.ok())
      std::fprintf(stderr, "%-20s %6lld %-*s %12.3f %12.3f %14.1f  %s\n", row.model.c_str(),
                   static_cast<long long>(row.batch), width, row.compiler.c_str(),
                   row.medianSeconds * 1e3, row.p90Seconds * 1e3, row.throughput(),
                   row.outputsAgree ? "" : "outputs differ");
    else
      std::fprintf(stderr, "%-20s %6lld %-*s %12s %12s %14s  %s: %s\n", row.model.c_str(),
                   static_cast<long long>(row.batch), width, row.compiler.c_str(), "-", "-", "-",
                   bench::statusName(row.status).c_str(), row.reason.c_str());
  }
}

void printFriction(const bench::FrictionReport& report) {
  // A sweep of one batch size (a depth sweep, say) has no friction to report.
  if (std::none_of(report.compilers.begin(), report.compilers.end(),
                   [](const auto& compiler) { return compiler.points > 0; }))
    return;
  std::fprintf(stderr, "friction (mean log2 of per-sample latency relative to batch %lld):\n",
               static_cast<long long>(report.referenceBatch));
  const int width = compilerWidth(report.compilers);
  for (const auto& compiler : report.compilers) {
    std::fprintf(stderr, "  %-*s %+.3f over %d points", width, compiler.compiler.c_str(),
                 compiler.coefficient, compiler.points);
    if (!std::isnan(compiler.reductionVsDefault) && compiler.compiler != "default")
      std::fprintf(stderr, ", %+.3f less than default", compiler.reductionVsDefault);
    std::fprintf(stderr, "\n");
  }
  for (const auto& reversal : report.reversals)
    std::fprintf(stderr, "  ranking reversal at batch %lld: %s runs %s faster than %s, %s not\n",
                 static_cast<long long>(reversal.batch), reversal.compilerA.c_str(),
                 reversal.modelA.c_str(), reversal.modelB.c_str(), reversal.compilerB.c_str());
}

void printDepthCurves(const std::vector<bench::DepthPoint>& points) {
  const int width = compilerWidth(points);
  std::fprintf(stderr, "%-20s %-*s %6s %6s %12s %14s %10s %9s\n", "family", width, "compiler",
               "batch", "depth", "median ms", "samples/s", "per block", "distinct");
  for (const bench::DepthPoint& point : points)
    std::fprintf(stderr, "%-20s %-*s %6lld %6d %12.3f %14.1f %10.3f %9s\n", point.family.c_str(),
                 width, point.compiler.c_str(), static_cast<long long>(point.batch), point.depth,
                 point.medianSeconds * 1e3, point.throughput, point.relativePerBlock,
                 point.distinctTasks > 0 ? std::to_string(point.distinctTasks).c_str() : "-");
}

// Returns 2 when the gate finds a regression. `remeasure`, on a live run, times a row again to
// confirm it (`confirmations` times at most).
int gate(const std::vector<bench::BenchRow>& rows, const std::string& baselinePath,
         double maxSlowdown, int confirmations,
         const std::function<bench::BenchRow(const bench::BenchRow&)>& remeasure) {
  bench::GateResult result = bench::applyGate(rows, bench::readRows(baselinePath), maxSlowdown);
  if (result.baselineCpus != result.currentCpus) {
    auto join = [](const std::vector<std::string>& cpus) {
      std::string text;
      for (const auto& cpu : cpus)
        text += (text.empty() ? "" : ", ") + cpu;
      return text.empty() ? std::string("unknown") : text;
    };
    spdlog::warn("the baseline was measured on {}, this run on {}: latencies of different "
                 "machines are not comparable",
                 join(result.baselineCpus), join(result.currentCpus));
  }
  if (result.withoutBaseline > 0)
    spdlog::warn("{} rows have no counterpart in the baseline {}", result.withoutBaseline,
                 baselinePath);
  if (result.otherThreads > 0)
    spdlog::warn("{} rows ran on another number of threads than their baseline rows",
                 result.otherThreads);
  if (remeasure && confirmations > 0 && !result.regressions.empty()) {
    spdlog::info("gate: measuring {} slower rows again (up to {} times each)",
                 result.regressions.size(), confirmations);
    const int cleared = bench::confirmRegressions(result, maxSlowdown, confirmations, remeasure);
    if (cleared > 0)
      spdlog::info("gate: {} of them ran within the threshold when measured again", cleared);
  }
  for (const auto& regression : result.regressions) {
    if (regression.current.ok()) {
      std::string reruns;
      for (double seconds : regression.rerunMedianSeconds)
        reruns += fmt::format("{}{:.3f}", reruns.empty() ? "" : ", ", seconds * 1e3);
      std::fprintf(stderr,
                   "regression: %s batch %lld %s: %.3f ms against %.3f ms in the baseline "
                   "(%+.1f%%, noise %.1f%%, threshold %.1f%%%s)\n",
                   regression.current.model.c_str(),
                   static_cast<long long>(regression.current.batch),
                   regression.current.compiler.c_str(), regression.current.medianSeconds * 1e3,
                   regression.baseline.medianSeconds * 1e3, regression.slowdown * 100,
                   regression.noise * 100, maxSlowdown * 100,
                   reruns.empty() ? "" : ("; measured again: " + reruns + " ms").c_str());
    } else
      std::fprintf(
          stderr, "regression: %s batch %lld %s: %s now (%s), ran in the baseline\n",
          regression.current.model.c_str(), static_cast<long long>(regression.current.batch),
          regression.current.compiler.c_str(), bench::statusName(regression.current.status).c_str(),
          regression.current.reason.c_str());
  }
  spdlog::info("gate: {} rows compared with {}, {} regressions beyond {:.1f}% and the noise",
               result.compared, baselinePath, result.regressions.size(), maxSlowdown * 100);
  return result.regressions.empty() ? 0 : 2;
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"Run models across batch sizes under several compilers; report latency, "
               "throughput and batch-size friction; gate against a baseline."};
  CommonOptions common;
  std::vector<std::string> models;
  std::string batchText = "1", compilersText, outputPath = "-", metricsPath, fromPath;
  std::string baselinePath, maxSlowdownText = "5%";
  int repeat = 10, confirmations = 2;
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  bool noIsolation = false, depthSweep = false;
  bench::PeerSettings peer{.script = CLUSTUNE_SCRIPTS_DIR "/bench_peer.py"};
  app.add_option("models", models, "ONNX models");
  app.add_option("--batch", batchText, "Batch sizes, increasing: 1,2,4,8")->capture_default_str();
  app.add_option("--compilers", compilersText,
                 "default, tuned:LOG, ort, torch, tvm; default@NCHW16c and "
                 "tuned@NCHW16c:LOG run clustune in the blocked layout (default: default and "
                 "every peer installed here)");
  app.add_option("--repeat", repeat, "Timed runs after one warm-up run")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--threads", threads, "Threads for every compiler")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_flag("--no-isolation", noIsolation,
               "Skip the first run of every kernel in the isolated worker process");
  app.add_option("-o,--output", outputPath, "Rows, one JSON line each ('-': stdout)")
      ->capture_default_str();
  app.add_option("--metrics", metricsPath, "Write the friction metrics as one JSON object");
  app.add_flag("--depth-sweep", depthSweep,
               "The models are <family>_d<depth>.onnx (scripts/make_block_models.py): also "
               "report latency, throughput and distinct tasks against the depth");
  app.add_option("--from", fromPath, "Read the rows of an earlier run instead of running models");
  app.add_option("--baseline", baselinePath,
                 "Compare with an earlier run's rows; exit 2 on a regression");
  app.add_option("--max-slowdown", maxSlowdownText,
                 "With --baseline: the slowdown allowed beyond the measured noise (5% or 0.05)")
      ->capture_default_str();
  app.add_option("--confirm", confirmations,
                 "With --baseline on a live run: measure a slower row again up to N times; it "
                 "is a regression only if every run is slower")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--peer-script", peer.script, "The peer runner (scripts/bench_peer.py)")
      ->capture_default_str();
  app.add_option("--python", peer.python, "Python interpreter for the peers")
      ->capture_default_str();
  addCommonOptions(app, common, /*withSeed=*/true);

  return runTool(app, common, argc, argv, [&] {
    const double maxSlowdown = bench::parseSlowdown(maxSlowdownText);
    std::vector<bench::BenchRow> rows;
    std::function<bench::BenchRow(const bench::BenchRow&)> remeasure;
    if (!fromPath.empty()) {
      if (!models.empty())
        throw Error("give either models to run or --from rows, not both");
      rows = bench::readRows(fromPath);
    } else {
      if (models.empty())
        throw Error("no model given (or --from bench.jsonl)");
      for (const std::string& model : models)
        if (model != "-" && !std::filesystem::exists(model))
          throw Error("the model does not exist", {.file = model});
      if (depthSweep)
        for (const std::string& model : models)
          if (!bench::parseDepthName(bench::modelName(model)))
            throw Error("--depth-sweep: the model is not named <family>_d<depth>.onnx "
                        "(scripts/make_block_models.py)",
                        {.file = model});
      const std::vector<std::int64_t> batches = bench::parseBatchList(batchText);
      std::vector<bench::CompilerSpec> compilers =
          compilersText.empty() ? bench::defaultCompilers() : bench::parseCompilers(compilersText);
      peer.threads = threads;
      peer.repeat = repeat;
      compilers = availableCompilers(std::move(compilers), peer);
      const bench::SweepSettings settings{.repeat = repeat,
                                          .threads = threads,
                                          .seed = common.seed,
                                          .isolate = !noIsolation,
                                          .peer = peer};
      bench::ModelSweep sweep(compilers, settings);
      remeasure = [&, compilers, models, settings](const bench::BenchRow& row) {
        const auto spec = std::find_if(compilers.begin(), compilers.end(),
                                       [&](const auto& c) { return c.name() == row.compiler; });
        const auto model = std::find_if(models.begin(), models.end(), [&](const auto& path) {
          return bench::modelName(path) == row.model;
        });
        assert(spec != compilers.end() && model != models.end());
        const bench::BenchRow again =
            bench::ModelSweep({*spec}, settings).run(*model, row.batch)[0];
        spdlog::info("{} batch {} {} again: {:.3f} ms", row.model, row.batch, row.compiler,
                     again.medianSeconds * 1e3);
        return again;
      };
      std::unique_ptr<std::ofstream> file;
      if (outputPath != "-") {
        file = std::make_unique<std::ofstream>(outputPath);
        if (!*file)
          throw Error("cannot write the rows", {.file = outputPath});
      }
      std::ostream& out = file ? *file : std::cout;
      spdlog::info("sweep on {}: {} models, batches {}, {} compilers, {} threads", sweep.cpu(),
                   models.size(), batchText, compilers.size(), threads);
      for (const std::string& model : models)
        for (std::int64_t batch : batches) {
          for (const bench::BenchRow& row : sweep.run(model, batch)) {
            out << toJson(row).dump() << '\n' << std::flush;
            if (row.ok())
              spdlog::info("{} batch {} {}: {:.3f} ms", row.model, row.batch, row.compiler,
                           row.medianSeconds * 1e3);
            else
              spdlog::warn("{} batch {} {}: {}: {}", row.model, row.batch, row.compiler,
                           bench::statusName(row.status), row.reason);
            rows.push_back(row);
          }
        }
    }
    const bench::FrictionReport friction = bench::computeFriction(rows);
    std::vector<bench::DepthPoint> depthCurves;
    if (depthSweep)
      depthCurves = bench::computeDepthCurves(rows);
    if (!metricsPath.empty()) {
      std::ofstream metrics(metricsPath);
      if (!metrics)
        throw Error("cannot write the metrics", {.file = metricsPath});
      nlohmann::ordered_json json = toJson(friction);
      if (depthSweep)
        json["depth"] = toJson(depthCurves);
      metrics << json.dump() << '\n';
    }
    if (common.quiet == 0) {
      printTable(rows);
      printFriction(friction);
      if (depthSweep)
        printDepthCurves(depthCurves);
    }
    return baselinePath.empty() ? 0
                                : gate(rows, baselinePath, maxSlowdown, confirmations, remeasure);
  });
}
