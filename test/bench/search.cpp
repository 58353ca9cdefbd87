// What one round of the evolutionary search costs, without measuring: for every task of a
// tasks.jsonl, a first round (empty history) of EvolutionarySearch with the bundled cost models,
// as clustune-tune runs it, `--repeat` times. A first round proposes the same candidates for a
// seed whatever the machine, so its time compares two builds on identical work; the digest over
// the proposed schedules shows that they did the same search. Nothing here passes or fails.
// Usage: bench-search TASKS [--cost-model DIR] [--count N] [--repeat R] [--seed S]
//                    [--population P] [--threads T]
#include "BenchSupport.h"
#include "codegen/cpu/CpuTarget.h"
#include "graph/TaskFile.h"
#include "runtime/ThreadPool.h"
#include "search/EvolutionarySearch.h"
#include "support/Error.h"
#include "support/Hash.h"
#include "support/Stopwatch.h"
#include "tune/CostModelDirectory.h"
#include "tune/LearnedCostModels.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

using namespace clustune;

namespace {

constexpr const char* kUsage =
    "usage: bench-search TASKS [--cost-model DIR] [--count N] [--repeat R] [--seed S] "
    "[--population P] [--threads T]";

struct Options {
  std::string tasksPath, costModelPath;
  long count = 8; // a warm-up round at 16 trials per task (Tuner::roundSize)
  long repeat = 3;
  long seed = 0;
  long population = 2048;
  long threads = 2;
};

Options parseOptions(int argc, char** argv) {
  Options options;
  const std::vector<std::string> positional =
      bench::parseArguments(argc, argv, kUsage,
                            {{"--cost-model", &options.costModelPath},
                             {"--count", &options.count},
                             {"--repeat", &options.repeat},
                             {"--seed", &options.seed},
                             {"--population", &options.population},
                             {"--threads", &options.threads}});
  if (positional.size() != 1 || options.count < 1 || options.repeat < 1 || options.population < 1 ||
      options.threads < 1)
    throw Error(kUsage);
  options.tasksPath = positional[0];
  return options;
}

} // namespace

int main(int argc, char** argv) try {
  const Options options = parseOptions(argc, argv);
  runtime::ThreadPool::global().setThreadCount(static_cast<int>(options.threads));
  const codegen::CpuTarget target = codegen::hostCpuTarget();
  const std::string costModelPath = options.costModelPath.empty()
                                        ? tune::bundledCostModelDirectory(target.cpu)
                                        : options.costModelPath;
  const tune::CostModelDirectory directory =
      tune::loadCostModelDirectory(costModelPath, target.cpu);

  std::vector<search::SearchTask> tasks;
  for (const graph::Task& task : graph::readTaskFile(options.tasksPath))
    tasks.push_back(search::makeSearchTask(task));

  search::EvolutionOptions evolution;
  evolution.population = static_cast<int>(options.population);
  evolution.populationPerCandidate = 0; // the population asked for, whatever the round's size
  evolution.sampling = {.cores = static_cast<int>(options.threads),
                        .vectorLanes = target.vectorBits / 32};

  std::vector<double> roundSeconds;
  std::string digests;
  for (long repeat = 0; repeat < options.repeat; ++repeat) {
    // A fresh model each repeat: the routing it caches is part of a first round's work.
    tune::PretrainedCostModel model(directory.ensemble, directory.gae ? &*directory.gae : nullptr,
                                    tune::Routing::Cluster, tune::FineTuning{.enabled = false});
    std::string proposedTexts;
    double total = 0;
    for (const search::SearchTask& task : tasks) {
      search::EvolutionarySearch strategy(evolution);
      Rng rng(static_cast<std::uint64_t>(options.seed));
      const auto start = SteadyClock::now();
      const std::vector<search::Candidate> proposed =
          strategy.propose(task, {}, model, static_cast<int>(options.count), rng);
      const double seconds = secondsSince(start);
      total += seconds;
      for (const search::Candidate& candidate : proposed)
        proposedTexts += candidate.text;
      const search::EvolutionReport& report = strategy.lastReport();
      const nlohmann::ordered_json line = {{"bench", "search"},
                                           {"repeat", repeat},
                                           {"task", task.task.key},
                                           {"seconds", seconds},
                                           {"sample_s", report.sampleSeconds},
                                           {"score_s", report.scoreSeconds},
                                           {"mutate_s", report.mutateSeconds},
                                           {"free_s", report.releaseSeconds},
                                           {"scored", report.scored},
                                           {"proposed", proposed.size()}};
      std::printf("%s\n", line.dump().c_str());
    }
    roundSeconds.push_back(total);
    digests += toHex(stableHash(proposedTexts)) + (repeat + 1 < options.repeat ? " " : "");
  }
  const nlohmann::ordered_json summary = {{"bench", "search_summary"},
                                          {"cpu", target.cpu},
                                          {"tasks", tasks.size()},
                                          {"repeat", options.repeat},
                                          {"population", options.population},
                                          {"threads", options.threads},
                                          {"seconds_median", bench::median(roundSeconds)},
                                          {"seconds", roundSeconds},
                                          {"digests", digests}};
  std::printf("%s\n", summary.dump().c_str());
  return 0;
} catch (const std::exception& error) {
  std::fprintf(stderr, "error: %s\n", error.what());
  return 1;
}
