// clustune's CPU kernels against peer libraries, in one run and at one thread count: GEMM 512³
// and 1024³ and resnet50's convolutions (batch 1, NCHW, fp32), in GFLOP/s. For each case:
//   clustune-sampled: the best of N schedules from search::sample, measured by measure::Measurer
//                     (each in the isolated worker, outputs checked); the best three of a quick
//                     screening are timed again like everything else;
//   clustune-hand:    a schedule written by hand for the case (peers_schedules.h, printed as
//                     JSON), measured the same way;
//   eigen, openblas:  Eigen 3.4 (-O3 -march=native) and cblas_sgemm, for GEMMs and 1x1 convs
//                     (which are GEMMs in NCHW: W[K, C] × X[C, H·W]; the epilogue is not counted);
//   onednn:           dnnl::matmul for GEMMs, dnnl::convolution_forward with the task's bias,
//                     residual sum and ReLU as post-ops, both on plain NCHW tensors
//                     (onednn-nchw) and on the layouts oneDNN prefers (onednn-blocked, reorders
//                     not timed).
// The implementations of a case are timed in interleaved rounds (a warm-up round, then
// `--repeat` rounds, each timing every implementation once for at least 100 ms, the rule of
// measure::timeRuns), so that they share the noise of a machine that other work also uses; a
// figure is the median over the rounds. Output: one JSON line per figure and a table, on
// stdout. --explore compares schedules by thread CPU time instead (see explore()). Run it
// through test/bench/peers.sh, which builds it and makes the resnet50 tasks. This file holds the
// options, the clustune contenders, --explore, the timing rounds and the table; the cases, the
// hand-picked schedules and the peer libraries have files of their own (peers_*.h).
#include "codegen/cpu/CpuCodegen.h"
#include "codegen/cpu/CpuTarget.h"
#include "codegen/cpu/JitLoader.h"
#include "measure/Measurer.h"
#include "measure/Timing.h"
#include "peers_cases.h"
#include "peers_libraries.h"
#include "peers_schedules.h"
#include "runtime/ThreadPool.h"
#include "schedule/Lower.h"
#include "schedule/State.h"
#include "search/Sample.h"
#include "support/Error.h"
#include "support/Statistics.h"
#include "te/LowerTask.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <sys/mman.h>
#include <thread>
#include <time.h>
#include <vector>

using namespace clustune;
using namespace clustune::bench;
using schedule::Step;

namespace {

struct Options {
  std::vector<int> threads = {2}; // sampling uses the first
  int samples = 1000;
  int repeat = 5;
  std::uint64_t seed = 1;
  std::string tasksPath;
  std::vector<std::string> only; // case names; empty = all
  std::vector<std::string> skip; // "sampled", "hand", "eigen", "openblas", "onednn"
  std::map<std::string, std::string> handOverrides; // case -> JSON steps file
  // Extra schedules timed as "clustune-<name>" for the selected cases (for finding hand-picked
  // schedules side by side): name -> JSON steps file.
  std::vector<std::pair<std::string, std::string>> variants;
  std::string dumpDir;
  bool listOnly = false;
  bool explore = false;
  bool hugePages = false; // --explore: buffers on 2 MiB pages (madvise), to see TLB effects
};

measure::MeasureOptions measureOptions(int threads, std::uint64_t seed,
                                       measure::TimingOptions timing) {
  measure::MeasureOptions measureOptions;
  measureOptions.runner.timing = timing;
  measureOptions.runner.threads = threads;
  measureOptions.runner.timeoutSeconds = 20;
  measureOptions.runner.seed = seed;
  measureOptions.buildParallelism = 2;
  return measureOptions;
}

codegen::CpuTarget benchTarget(int threads) {
  codegen::CpuTarget target = codegen::hostCpuTarget();
  target.cores = threads;
  return target;
}

// A clustune schedule as a Timer: built once and checked against the reference once (an error
// is returned instead), then each call is one repeat in the isolated worker.
struct ClustuneKernel {
  std::string error;
  Timer timer;
};

ClustuneKernel clustuneKernel(const Case& c, const std::vector<Step>& steps, int threads,
                              std::uint64_t seed) {
  const codegen::CpuTarget target = benchTarget(threads);
  auto measurer = std::make_shared<measure::Measurer>(
      target, measureOptions(threads, seed, {.number = 1, .repeat = 1, .minRepeatMs = 100}));
  auto built = std::make_shared<measure::BuildResult>(
      measure::buildCandidate(measure::MeasureInput{c.task, steps}, target));
  const measure::MeasureResult checked = measurer->measureBuilt(c.task, *built);
  if (!checked.ok())
    return {checked.error + ": " + checked.errorDetail, {}};
  return {"", [measurer, built] {
            const measure::RunOutcome outcome = measurer->runner().run(*built, false);
            return outcome.ok() ? outcome.costs[0] : 0.0;
          }};
}

struct SampledBest {
  std::vector<Step> steps;
  int valid = 0, measured = 0;
};

// Screens every sample with one short run each (in the worker, outputs checked); the three
// fastest are timed again (three repeats of 100 ms) and the fastest of those wins.
SampledBest bestSampled(const Case& c, const Options& options, int threads) {
  const codegen::CpuTarget target = benchTarget(threads);
  const auto candidates =
      search::sample(c.task, options.samples, options.seed,
                     {.cores = threads, .vectorLanes = target.vectorBits / 32, .maxAttempts = 0});
  measure::Measurer screening(
      target, measureOptions(threads, options.seed, {.number = 1, .repeat = 1, .minRepeatMs = 0}));
  std::vector<std::pair<double, std::size_t>> ranked;
  const std::size_t batch = 32;
  SampledBest best;
  for (std::size_t first = 0; first < candidates.size(); first += batch) {
    std::vector<measure::MeasureInput> inputs;
    for (std::size_t i = first; i < std::min(candidates.size(), first + batch); ++i)
      inputs.push_back({c.task, candidates[i]});
    const auto results = screening.measure(inputs);
    for (std::size_t i = 0; i < results.size(); ++i) {
      ++best.measured;
      if (results[i].ok()) {
        ++best.valid;
        ranked.emplace_back(results[i].meanCost(), first + i);
      }
    }
    std::fprintf(stderr, "\r%s: %zu/%zu samples screened", c.name.c_str(),
                 std::min(candidates.size(), first + batch), candidates.size());
  }
  std::fprintf(stderr, "\n");
  std::sort(ranked.begin(), ranked.end());
  measure::Measurer finalists(
      target,
      measureOptions(threads, options.seed, {.number = 1, .repeat = 3, .minRepeatMs = 100}));
  double bestSeconds = 0;
  for (std::size_t i = 0; i < std::min<std::size_t>(3, ranked.size()); ++i) {
    const auto result = finalists.measure({{c.task, candidates[ranked[i].second]}})[0];
    if (result.ok() && (bestSeconds == 0 || median(result.costs) < bestSeconds)) {
      bestSeconds = median(result.costs);
      best.steps = candidates[ranked[i].second];
    }
  }
  return best;
}

std::vector<Step> readSteps(const std::string& path) {
  std::ifstream file(path);
  if (!file)
    throw Error("cannot read " + path);
  return schedule::stepsFromJson(nlohmann::json::parse(file));
}

void dumpKernel(const Case& c, const std::vector<Step>& steps, const Options& options) {
  const te::Workload workload = te::lowerTask(c.task);
  const schedule::State state = schedule::replay(workload, steps);
  const te::LoweredFunction function = schedule::lower(workload, state, "kernel_" + c.name);
  const codegen::CpuTarget target = benchTarget(options.threads.front());
  const std::string stem = options.dumpDir + "/" + c.name;
  std::ofstream(stem + ".state.txt") << schedule::toString(state);
  std::ofstream(stem + ".stmt.txt") << te::toString(function);
  std::ofstream(stem + ".ll") << codegen::emitLlvmIr(function, target);
  std::ofstream(stem + ".o", std::ios::binary) << codegen::compileToObject(function, target);
  std::ofstream(stem + ".steps.json") << schedule::toJson(steps).dump() << "\n";
}

// ---------------------------------------------------------------------------------------------

// --explore: the hand schedule and the variants of each case, loaded in this process and run on
// one thread; the figure is the least thread CPU time of many short runs. That compares
// schedules on a machine that other work shares (time slices given to others do not count),
// for finding the hand-picked schedules, not for reporting.
void explore(const Case& c, const std::vector<std::pair<std::string, std::vector<Step>>>& schedules,
             const Options& options) {
  runtime::ThreadPool::global().setThreadCount(1);
  const te::Workload workload = te::lowerTask(c.task);
  const codegen::CpuTarget target = benchTarget(1);
  struct Loaded {
    std::string name;
    codegen::LoadedKernel kernel;
    std::vector<double> seconds;
  };
  std::vector<Loaded> kernels;
  for (const auto& [name, steps] : schedules) {
    const te::LoweredFunction function =
        schedule::lower(workload, schedule::replay(workload, steps), "explore_" + name);
    kernels.push_back(
        {name,
         codegen::LoadedKernel(codegen::compileToObject(function, target), function.name),
         {}});
  }
  const auto specs = measure::argumentSpecs(c.task, workload);
  std::vector<te::TensorData> buffers = measure::generateInputs(specs, options.seed);
  for (const measure::ArgumentSpec& spec : specs)
    if (spec.isOutput)
      buffers.emplace_back(spec.dtype, spec.shape);
  std::vector<void*> arguments;
  std::vector<std::shared_ptr<void>> hugeBuffers;
  for (te::TensorData& buffer : buffers) {
    if (!options.hugePages) {
      arguments.push_back(buffer.data());
      continue;
    }
    const std::size_t huge = std::size_t{2} << 20;
    const std::size_t bytes = (buffer.byteSize() + huge - 1) / huge * huge;
    void* memory = std::aligned_alloc(huge, bytes);
    madvise(memory, bytes, MADV_HUGEPAGE);
    std::memcpy(memory, buffer.data(), buffer.byteSize());
    hugeBuffers.emplace_back(memory, std::free);
    arguments.push_back(memory);
  }
  const auto cpuNow = [] {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return now.tv_sec + now.tv_nsec * 1e-9;
  };
  for (int round = 0; round < 10 * options.repeat; ++round)
    for (Loaded& loaded : kernels) {
      loaded.kernel.run(arguments.data());
      const double start = cpuNow();
      loaded.kernel.run(arguments.data());
      loaded.seconds.push_back(cpuNow() - start);
    }
  for (const Loaded& loaded : kernels) {
    if (loaded.seconds.empty()) // --repeat 0: compile (and --dump) only
      continue;
    const double best = *std::min_element(loaded.seconds.begin(), loaded.seconds.end());
    std::printf("%-24s %-20s min %8.1f GFLOP/s  median %8.1f GFLOP/s\n", c.name.c_str(),
                loaded.name.c_str(), c.flops / best * 1e-9,
                c.flops / median(loaded.seconds) * 1e-9);
  }
}

struct Row {
  std::string caseName, implementation;
  int threads = 0;
  double gflops = 0, milliseconds = 0;
  std::string note;
};

// One implementation of a case at one thread count, timed in rounds with the others.
struct Contender {
  std::string implementation;
  std::string note;
  std::optional<nlohmann::ordered_json> schedule;
  Timer timer; // empty when it could not run (the note says why)
  std::vector<double> seconds = {};
};

void report(std::vector<Row>& rows, const Case& c, int threads, const Contender& contender,
            int repeats) {
  const double seconds = contender.seconds.empty() ? 0 : median(contender.seconds);
  Row row{c.name,        contender.implementation,
          threads,       seconds > 0 ? c.flops / seconds * 1e-9 : 0,
          seconds * 1e3, contender.note};
  nlohmann::ordered_json line{{"v", 1},
                              {"bench", "peers"},
                              {"case", c.name},
                              {"impl", contender.implementation},
                              {"threads", threads},
                              {"flops", c.flops},
                              {"seconds", seconds},
                              {"gflops", row.gflops},
                              {"repeats", repeats}};
  if (!contender.note.empty())
    line["note"] = contender.note;
  if (contender.schedule)
    line["schedule"] = *contender.schedule;
  std::printf("%s\n", line.dump().c_str());
  std::fflush(stdout);
  rows.push_back(row);
}

bool wanted(const std::vector<std::string>& list, const std::string& name) {
  return list.empty() || std::find(list.begin(), list.end(), name) != list.end();
}

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, ',');)
    if (!item.empty())
      items.push_back(item);
  return items;
}

constexpr const char* kUsage =
    "usage: bench-peers [--threads T[,T2...]] [--samples N] [--repeat R] [--seed S] "
    "[--tasks tasks.jsonl] [--cases a,b] [--skip sampled,hand,eigen,openblas,onednn] "
    "[--hand CASE=steps.json] [--variant NAME=steps.json] [--dump DIR] "
    "[--explore [--huge-pages]] [--list]";

Options parseOptions(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        throw Error("missing value after " + argument);
      return argv[++i];
    };
    if (argument == "--threads") {
      options.threads.clear();
      for (const std::string& count : splitList(value()))
        options.threads.push_back(std::max(1, std::stoi(count)));
      if (options.threads.empty())
        throw Error("--threads needs at least one count");
    } else if (argument == "--samples")
      options.samples = std::stoi(value());
    else if (argument == "--repeat")
      options.repeat = std::stoi(value());
    else if (argument == "--seed")
      options.seed = std::stoull(value());
    else if (argument == "--tasks")
      options.tasksPath = value();
    else if (argument == "--cases")
      options.only = splitList(value());
    else if (argument == "--skip")
      options.skip = splitList(value());
    else if (argument == "--hand") {
      const std::string spec = value();
      const auto equals = spec.find('=');
      if (equals == std::string::npos)
        throw Error("--hand takes CASE=steps.json");
      options.handOverrides[spec.substr(0, equals)] = spec.substr(equals + 1);
    } else if (argument == "--variant") {
      const std::string spec = value();
      const auto equals = spec.find('=');
      if (equals == std::string::npos)
        throw Error("--variant takes NAME=steps.json");
      options.variants.emplace_back(spec.substr(0, equals), spec.substr(equals + 1));
    } else if (argument == "--dump")
      options.dumpDir = value();
    else if (argument == "--explore")
      options.explore = true;
    else if (argument == "--huge-pages")
      options.hugePages = true;
    else if (argument == "--list")
      options.listOnly = true;
    else if (argument == "-h" || argument == "--help") {
      std::printf("%s\n(test/bench/peers.cpp's header says what each implementation is)\n", kUsage);
      std::exit(0);
    } else
      throw Error("unknown argument '" + argument + "'; " + kUsage);
  }
  return options;
}

} // namespace

int main(int argc, char** argv) try {
  const Options options = parseOptions(argc, argv);
  std::vector<Case> cases{gemmCase(512), gemmCase(1024)};
  // Any other size on request: --cases gemm256
  for (const std::string& name : options.only)
    if (name.rfind("gemm", 0) == 0 && name != "gemm512" && name != "gemm1024")
      cases.push_back(gemmCase(std::stoll(name.substr(4))));
  if (!options.tasksPath.empty())
    for (Case& c : convCases(options.tasksPath))
      cases.push_back(std::move(c));
  if (options.listOnly) {
    for (const Case& c : cases)
      std::printf("%s\n", c.name.c_str());
    return 0;
  }

  const codegen::CpuTarget target = benchTarget(options.threads.front());
  std::fprintf(stderr, "host: %s, %d-bit vectors; threads %d first; %d samples; %d repeats\n",
               target.cpu.c_str(), target.vectorBits, options.threads.front(), options.samples,
               options.repeat);
  std::vector<Row> rows;
  const auto skipped = [&](const char* what) {
    return std::find(options.skip.begin(), options.skip.end(), what) != options.skip.end();
  };
  for (const Case& c : cases) {
    if (!wanted(options.only, c.name))
      continue;
    std::vector<Step> handSteps;
    if (!skipped("hand")) {
      const auto override = options.handOverrides.find(c.name);
      handSteps = override != options.handOverrides.end()
                      ? readSteps(override->second)
                      : handSchedule(c, options.threads.front());
      if (!options.dumpDir.empty())
        dumpKernel(c, handSteps, options);
    }
    if (options.explore) {
      std::vector<std::pair<std::string, std::vector<Step>>> schedules;
      if (!handSteps.empty())
        schedules.emplace_back("hand", handSteps);
      for (const auto& [name, path] : options.variants)
        schedules.emplace_back(name, readSteps(path));
      explore(c, schedules, options);
      continue;
    }
    std::optional<SampledBest> sampled;
    if (!skipped("sampled") && options.samples > 0)
      sampled = bestSampled(c, options, options.threads.front());

    for (const int threads : options.threads) {
      std::vector<Contender> contenders;
      const auto addClustune = [&](const std::string& implementation,
                                   const std::vector<Step>& steps, std::string note) {
        ClustuneKernel kernel = clustuneKernel(c, steps, threads, options.seed);
        if (!kernel.error.empty())
          note = kernel.error;
        contenders.push_back({implementation, note, schedule::toJson(steps), kernel.timer});
      };
      if (!skipped("hand"))
        addClustune("clustune-hand", handSteps, "");
      for (const auto& [name, path] : options.variants)
        addClustune("clustune-" + name, readSteps(path), "");
      if (sampled)
        addClustune("clustune-sampled", sampled->steps,
                    "best of " + std::to_string(sampled->valid) + " valid of " +
                        std::to_string(sampled->measured) + " samples");
      const bool gemmLike = !c.isConv || (c.conv.kernel == 1 && c.conv.stride == 1);
      const std::string gemmNote = c.isConv ? "the GEMM only" : "";
      if (gemmLike && !skipped("eigen"))
        contenders.push_back({"eigen", gemmNote, std::nullopt, eigenGemm(c, threads)});
      if (gemmLike && !skipped("openblas"))
        contenders.push_back({"openblas", gemmNote, std::nullopt, openblasGemm(c, threads)});
      if (!skipped("onednn")) {
        if (c.isConv) {
          contenders.push_back({"onednn-nchw", "", std::nullopt, onednnConv(c, false, threads)});
          contenders.push_back({"onednn-blocked", "oneDNN's layouts, reorders not timed",
                                std::nullopt, onednnConv(c, true, threads)});
        } else {
          contenders.push_back({"onednn", "", std::nullopt, onednnMatmul(c, threads)});
        }
      }
      // A warm-up round, then `repeat` rounds; each round times every contender once. The
      // pause lets the previous library's worker threads stop spinning (libgomp spins for a
      // while after a parallel region, OpenBLAS's threads for about 2^28 cycles) before the
      // next contender needs the cores.
      for (int round = 0; round <= options.repeat; ++round)
        for (Contender& contender : contenders)
          if (contender.timer) {
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            const double seconds = contender.timer();
            if (round > 0 && seconds > 0)
              contender.seconds.push_back(seconds);
          }
      for (const Contender& contender : contenders)
        report(rows, c, threads, contender, options.repeat);
    }
  }

  std::printf("\n%-32s %-18s %7s %9s %9s  %s\n", "case", "implementation", "threads", "GFLOP/s",
              "ms", "note");
  for (const Row& row : rows)
    std::printf("%-32s %-18s %7d %9.1f %9.3f  %s\n", row.caseName.c_str(),
                row.implementation.c_str(), row.threads, row.gflops, row.milliseconds,
                row.note.c_str());
  return 0;
} catch (const std::exception& error) {
  std::fprintf(stderr, "error: %s\n", error.what());
  return 1;
}
