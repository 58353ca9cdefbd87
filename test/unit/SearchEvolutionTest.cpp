// Evolutionary search (search/EvolutionarySearch.h): it proposes distinct, unmeasured, valid
// candidates, deterministically for a seed; with a cost model that knows what is fast it
// proposes better candidates than random sampling; ε-greedy keeps a random share; schedules
// transferred from sibling tasks open the round; a population sized per candidate follows the
// round; and a space whose every schedule was measured yields nothing.
#include "SearchTestSupport.h"
#include "search/EvolutionarySearch.h"
#include "search/RandomCostModel.h"

#include <gtest/gtest.h>
#include <numeric>

using namespace clustune;
using namespace clustune::search;
using namespace clustune::search::testing;

namespace {

// Scores a matmul schedule by its first tile's innermost factor: a known, learnable
// preference, so that a search that follows the model can be told from one that does not.
class InnermostFactorModel final : public CostModel {
public:
  std::vector<double> predict(const graph::Task&,
                              std::span<const Candidate* const> candidates) override {
    std::vector<double> scores;
    for (const Candidate* candidate : candidates)
      scores.push_back(score(candidate->steps));
    return scores;
  }
  void update(std::span<const Measurement>, UpdateBudget) override {}
  std::string name() const override { return "innermost-factor"; }

  static double score(const Steps& steps) {
    for (const schedule::Step& step : steps)
      if (const auto* split = std::get_if<schedule::SplitStep>(&step);
          split && split->factors.size() == 3)
        return static_cast<double>(split->factors.back());
    return 0;
  }
};

EvolutionOptions smallOptions() {
  EvolutionOptions options;
  options.population = 128;
  options.iterations = 3;
  options.sampling = {.cores = 2};
  return options;
}

TEST(SearchEvolution, ProposesDistinctUnmeasuredValidCandidatesDeterministically) {
  const SearchTask task = makeSearchTask(matmulTask(32, 48, 64));
  std::unordered_set<std::string> measured;
  for (const Steps& steps : sample(task.workload, 20, 5, {.cores = 2}))
    measured.insert(schedule::scheduleText(steps));
  const SearchHistory history{.measured = &measured};
  EvolutionarySearch search(smallOptions());
  RandomCostModel model(3);
  Rng rng(11);
  const std::vector<Candidate> proposed = search.propose(task, history, model, 32, rng);
  ASSERT_EQ(proposed.size(), 32u);
  std::set<std::string> texts;
  for (const Candidate& candidate : proposed) {
    EXPECT_FALSE(measured.contains(candidate.text));
    EXPECT_EQ(candidate.text, schedule::scheduleText(candidate.steps));
    texts.insert(candidate.text);
  }
  EXPECT_EQ(texts.size(), proposed.size());
  EXPECT_TRUE(matchesReference(task.workload, proposed.front().steps));

  RandomCostModel again(3);
  Rng sameRng(11);
  const std::vector<Candidate> repeated = search.propose(task, history, again, 32, sameRng);
  ASSERT_EQ(repeated.size(), proposed.size());
  for (std::size_t i = 0; i < proposed.size(); ++i)
    EXPECT_EQ(repeated[i].text, proposed[i].text);
  EXPECT_EQ(search.lastReport().proposed, 32);
  EXPECT_GT(search.lastReport().validMutations, 0);
}

TEST(SearchEvolution, FollowsTheCostModelBeyondRandomSampling) {
  const SearchTask task = makeSearchTask(matmulTask(64, 64, 64));
  EvolutionarySearch search(smallOptions());
  InnermostFactorModel model;
  Rng rng(2);
  const std::vector<Candidate> proposed = search.propose(task, {}, model, 16, rng);
  ASSERT_FALSE(proposed.empty());
  double evolved = 0, random = 0;
  for (const Candidate& candidate : proposed)
    evolved += InnermostFactorModel::score(candidate.steps) / proposed.size();
  const std::vector<Steps> sampled = sample(task.workload, 64, 2, {.cores = 2});
  for (const Steps& steps : sampled)
    random += InnermostFactorModel::score(steps) / sampled.size();
  EXPECT_GT(evolved, 2 * random) << "evolved mean " << evolved << ", random mean " << random;
}

TEST(SearchEvolution, EpsilonGreedyTakesARandomShare) {
  const SearchTask task = makeSearchTask(matmulTask(32, 48, 64));
  EvolutionarySearch search(smallOptions());
  InnermostFactorModel model;
  Rng rng(4);
  EXPECT_EQ(search.propose(task, {}, model, 64, rng).size(), 64u);
  EXPECT_EQ(search.lastReport().randomlyPicked, 3); // ⌊0.05 × 64⌋, as Ansor
}

TEST(SearchEvolution, MeasuredSeedsJoinThePopulation) {
  const SearchTask task = makeSearchTask(matmulTask(32, 48, 64));
  std::vector<Candidate> seeds;
  for (const Steps& steps : sample(task.workload, 5, 8, {.cores = 2}))
    seeds.push_back(*makeCandidate(task.workload, steps));
  std::vector<const Candidate*> fastest;
  std::unordered_set<std::string> measured;
  for (const Candidate& seed : seeds) {
    fastest.push_back(&seed);
    measured.insert(seed.text);
  }
  EvolutionarySearch search(smallOptions());
  RandomCostModel model(1);
  Rng rng(6);
  for (const Candidate& candidate :
       search.propose(task, {.measured = &measured, .fastest = fastest}, model, 16, rng))
    EXPECT_FALSE(measured.contains(candidate.text));
  EXPECT_EQ(search.lastReport().measuredSeeds, 5);
}

TEST(SearchEvolution, TransferredSchedulesOpenTheRoundAndSeedThePopulation) {
  const SearchTask task = makeSearchTask(matmulTask(32, 48, 64));
  std::vector<Candidate> transferred;
  for (const Steps& steps : sample(task.workload, 5, 9, {.cores = 2}))
    transferred.push_back(*makeCandidate(task.workload, steps));
  EvolutionarySearch search(smallOptions());
  InnermostFactorModel model;
  Rng rng(6);
  const std::vector<Candidate> proposed =
      search.propose(task, {.transferred = transferred}, model, 16, rng);
  ASSERT_EQ(proposed.size(), 16u);
  // round(0.125 × 16) = 2, in the order given, whatever the model thinks of them.
  EXPECT_EQ(proposed[0].text, transferred[0].text);
  EXPECT_EQ(proposed[1].text, transferred[1].text);
  EXPECT_EQ(search.lastReport().transferred, 2);
  EXPECT_EQ(search.lastReport().transferSeeds, 5);
  std::set<std::string> texts;
  for (const Candidate& candidate : proposed)
    EXPECT_TRUE(texts.insert(candidate.text).second);
}

TEST(SearchEvolution, PopulationPerCandidateSizesEachRound) {
  EvolutionOptions options = smallOptions();
  options.populationPerCandidate = 0; // off: the population, whatever the round
  EXPECT_EQ(options.populationFor(1), 128);
  options.population = 2048;
  options.populationPerCandidate = 32;
  EXPECT_EQ(options.populationFor(1), 512); // the floor
  EXPECT_EQ(options.populationFor(16), 512);
  EXPECT_EQ(options.populationFor(40), 1280);
  EXPECT_EQ(options.populationFor(64), 2048);
  EXPECT_EQ(options.populationFor(1000), 2048); // the ceiling
  options.population = 100;
  EXPECT_EQ(options.populationFor(1), 100); // a floor above the ceiling yields to it

  // A round draws and breeds the population sized for its count.
  const SearchTask task = makeSearchTask(matmulTask(32, 48, 64));
  options = smallOptions();
  options.populationPerCandidate = 8;
  options.minPopulation = 16;
  EvolutionarySearch search(options);
  RandomCostModel model(3);
  Rng rng(5);
  ASSERT_EQ(search.propose(task, {}, model, 4, rng).size(), 4u);
  EXPECT_EQ(search.lastReport().population, 32);
  EXPECT_LE(search.lastReport().sampled, 32);
  EXPECT_LE(search.lastReport().mutations, 32 * options.iterations);
  ASSERT_EQ(search.propose(task, {}, model, 64, rng).size(), 64u);
  EXPECT_EQ(search.lastReport().population, 128);
  EXPECT_GT(search.lastReport().mutations, 32 * options.iterations);
}

TEST(SearchEvolution, AnExhaustedSpaceYieldsNothing) {
  // An element-wise task has a small space: sample all of it, call it measured.
  const SearchTask task = makeSearchTask(addReluTask());
  std::unordered_set<std::string> measured;
  EvolutionarySearch search(smallOptions());
  RandomCostModel model(1);
  for (int round = 0; round < 40; ++round) {
    Rng rng(static_cast<std::uint64_t>(round));
    const std::vector<Candidate> proposed =
        search.propose(task, {.measured = &measured}, model, 64, rng);
    if (proposed.empty())
      return SUCCEED();
    for (const Candidate& candidate : proposed)
      EXPECT_TRUE(measured.insert(candidate.text).second);
  }
  FAIL() << "still proposing after " << measured.size() << " candidates";
}

} // namespace
