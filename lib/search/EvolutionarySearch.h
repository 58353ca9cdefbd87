// Ansor's evolutionary search (DESIGN §7, REFERENCES.md "Ansor"), the SearchStrategy of the
// tuner. One round for a task:
//   1. the initial population: populationFor(count) random completions of the task's sketches
//      (Sample.h) that were not measured, plus the fastest measured candidates, up to
//      measuredSeedRatio of the population, and the schedules transferred from sibling tasks;
//   2. `iterations` generations: every individual is scored by the cost model, the best
//      unmeasured ones seen so far are kept (twice the round's size), and the next generation
//      is drawn from the current one with probability proportional to score, each child
//      mutated (Mutation.h) with mutationProbability;
//   3. the round: first up to transferShare of it from the transferred schedules, fastest donor
//      first, since the cost model may know this task too little to rank them; then ε-greedy,
//      the best kept candidates except epsGreedy of them drawn at random from the initial
//      population, so that a misleading cost model cannot starve the search.
// No candidate measured before is ever proposed, and none twice. Each generation is built and
// lowered on the process's thread pool; slot i of generation g draws from its own stream, so a
// round depends on the seed, not on the thread count.
#pragma once

#include "search/Mutation.h"
#include "search/Sample.h"
#include "search/SearchStrategy.h"

namespace clustune::search {

struct EvolutionOptions {
  int population = 2048;
  // Above 0, a round's population is this many individuals per candidate it proposes, at
  // least minPopulation and at most `population`: Ansor's 2,048 for its rounds of 64 is 32 per
  // candidate, and a round costs its population's lowering and scoring whatever it measures.
  // At 16 trials per task this cut the search by two thirds and tuning by a third, with
  // schedules as fast (docs/throughput.md, "A population sized by the round"). 0 keeps
  // `population` for every round.
  int populationPerCandidate = 32;
  int minPopulation = 512;
  int iterations = 4;
  double mutationProbability = 0.85;
  double epsGreedy = 0.05;
  double measuredSeedRatio = 0.2;
  double transferShare = 0.125;
  MutationWeights weights = {};
  SampleOptions sampling = {};

  // The population of a round that proposes `count` candidates.
  int populationFor(int count) const;
};

// What one round did, for logs and the tuner's time accounting.
struct EvolutionReport {
  int population = 0;    // the round's population (EvolutionOptions::populationFor)
  int sampled = 0;       // valid unmeasured random completions in the initial population
  int measuredSeeds = 0; // fastest measured candidates added to it
  int transferSeeds = 0; // schedules transferred from sibling tasks added to it
  int generations = 0;
  int mutations = 0;      // mutations tried
  int validMutations = 0; // mutated schedules that replayed and lowered
  int scored = 0;         // distinct candidates the cost model scored
  int proposed = 0;
  int randomlyPicked = 0; // of proposed, the ε-greedy share
  int transferred = 0;    // of proposed, schedules transferred from sibling tasks
  double seconds = 0;
  double sampleSeconds = 0;  // drawing and lowering the initial population
  double scoreSeconds = 0;   // the cost model's predictions (features included)
  double mutateSeconds = 0;  // drawing, mutating and lowering the next generations
  double releaseSeconds = 0; // freeing replaced generations and the sampled population
};

class EvolutionarySearch final : public SearchStrategy {
public:
  explicit EvolutionarySearch(EvolutionOptions options) : options_(std::move(options)) {}

  std::vector<Candidate> propose(const SearchTask& task, const SearchHistory& history,
                                 CostModel& model, int count, Rng& rng) override;

  const EvolutionOptions& options() const { return options_; }
  // The report of the last propose().
  const EvolutionReport& lastReport() const { return report_; }

private:
  EvolutionOptions options_;
  EvolutionReport report_;
};

} // namespace clustune::search
