// Mutations of evolutionary search (search/Mutation.h) and the tile factors they edit
// (search/Sketch.h): a schedule's drawn factors read back and rewrite it unchanged; each
// mutation changes what it says and nothing else; mutated schedules that lower compute what
// the reference interpreter computes.
#include "SearchTestSupport.h"
#include "search/Candidate.h"
#include "search/Mutation.h"
#include "search/Sample.h"
#include "search/Sketch.h"

#include <gtest/gtest.h>
#include <numeric>

using namespace clustune;
using namespace clustune::search;
using namespace clustune::search::testing;

namespace {

std::int64_t product(const std::vector<std::int64_t>& factors) {
  return std::accumulate(factors.begin(), factors.end(), std::int64_t{1},
                         std::multiplies<std::int64_t>());
}

TEST(SearchTileFactors, SampledSchedulesCompleteASketchAndTheirFactorsRoundTrip) {
  for (const graph::Task& task : {matmulTask(32, 48, 64), convBiasReluTask()}) {
    const te::Workload workload = te::lowerTask(task);
    const std::vector<Sketch> sketches = generateSketches(workload);
    for (const Steps& steps : sample(workload, 40, 7, {.cores = 2})) {
      const int index = findSketch(sketches, steps);
      ASSERT_GE(index, 0) << json(steps);
      const Sketch& sketch = sketches[static_cast<std::size_t>(index)];
      const TileFactors factors = tileFactors(sketch, steps);
      ASSERT_EQ(factors.size(), sketch.tiles.size());
      for (std::size_t tile = 0; tile < factors.size(); ++tile)
        EXPECT_EQ(sketch.tiles[tile].extent % product(factors[tile]), 0);
      Steps rewritten = steps;
      setTileFactors(sketch, factors, rewritten);
      EXPECT_EQ(json(rewritten), json(steps));
    }
  }
}

TEST(SearchTileFactors, ADefaultScheduleCompletesNoSketch) {
  const te::Workload workload = te::lowerTask(matmulTask(32, 48, 64));
  EXPECT_EQ(findSketch(generateSketches(workload), {}), -1);
}

TEST(SearchMutation, TileSizeMovesOneFactorBetweenLevelsOfOneAxis) {
  const te::Workload workload = te::lowerTask(convBiasReluTask());
  const std::vector<Sketch> sketches = generateSketches(workload);
  int changed = 0;
  for (const Steps& steps : sample(workload, 30, 3, {.cores = 2})) {
    const Sketch& sketch = sketches[static_cast<std::size_t>(findSketch(sketches, steps))];
    Rng rng(static_cast<std::uint64_t>(changed) + 17);
    const std::optional<Steps> mutated = mutateTileSize(sketch, steps, rng);
    if (!mutated)
      continue;
    ASSERT_TRUE(completesSketch(sketch, *mutated));
    const TileFactors before = tileFactors(sketch, steps), after = tileFactors(sketch, *mutated);
    int tilesChanged = 0;
    for (std::size_t tile = 0; tile < before.size(); ++tile) {
      if (before[tile] == after[tile])
        continue;
      ++tilesChanged;
      // The factorisation stays exact and the innermost tile stays vectorizable.
      EXPECT_EQ(sketch.tiles[tile].extent % product(after[tile]), 0);
      EXPECT_LE(after[tile].back(), kMaxInnermostFactor);
    }
    EXPECT_LE(tilesChanged, 1);
    // Everything but the split factors is untouched.
    ASSERT_EQ(mutated->size(), steps.size());
    for (std::size_t index = sketch.steps.size(); index < steps.size(); ++index)
      EXPECT_EQ((*mutated)[index], steps[index]);
    if (const std::optional<Candidate> candidate = makeCandidate(workload, *mutated)) {
      ++changed;
      EXPECT_TRUE(matchesReference(workload, *mutated));
    }
  }
  EXPECT_GE(changed, 10);
}

TEST(SearchMutation, AutoUnrollGivesOneStageAnotherStep) {
  const te::Workload workload = te::lowerTask(matmulTask(32, 48, 64));
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    const Steps steps = sample(workload, 1, seed, {.cores = 2}).front();
    Rng rng(seed);
    const std::optional<Steps> mutated = mutateAutoUnroll(workload, steps, rng);
    ASSERT_TRUE(mutated);
    const schedule::State before = schedule::replay(workload, steps);
    const schedule::State after = schedule::replay(workload, *mutated);
    int differing = 0;
    for (std::size_t stage = 0; stage < before.stages().size(); ++stage) {
      const int old = before.stages()[stage].autoUnrollMaxStep;
      const int now = after.stages()[stage].autoUnrollMaxStep;
      if (old == now)
        continue;
      ++differing;
      EXPECT_NE(std::find(std::begin(kAutoUnrollChoices), std::end(kAutoUnrollChoices), now),
                std::end(kAutoUnrollChoices));
    }
    EXPECT_EQ(differing, 1) << json(steps) << " -> " << json(*mutated);
  }
}

TEST(SearchMutation, ComputeLocationMovesTheMovableStageAndKeepsValuesRight) {
  // The first product of a matmul chain may sit at root or in its consumer's outer loops.
  const te::Workload workload = te::lowerTask(matmulChainTask(16, 24, 32));
  const std::vector<Sketch> sketches = generateSketches(workload);
  std::set<std::string> locations;
  int valid = 0;
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    const Steps steps = sample(workload, 1, seed, {.cores = 2}).front();
    const int index = findSketch(sketches, steps);
    ASSERT_GE(index, 0);
    Rng rng(seed + 100);
    const std::optional<Steps> mutated =
        mutateComputeLocation(workload, sketches[static_cast<std::size_t>(index)], steps, rng);
    if (!mutated || !makeCandidate(workload, *mutated))
      continue;
    ++valid;
    const schedule::State after = schedule::replay(workload, *mutated);
    // A real move: another program, not the same one spelt differently.
    EXPECT_NE(te::toString(makeCandidate(workload, steps)->function),
              te::toString(makeCandidate(workload, *mutated)->function))
        << json(steps) << " -> " << json(*mutated);
    for (const schedule::Stage& stage : after.stages())
      locations.insert(std::to_string(static_cast<int>(stage.location.kind)) + ":" +
                       std::to_string(stage.location.targetIterator));
    if (valid % 4 == 0) {
      EXPECT_TRUE(matchesReference(workload, *mutated));
    }
  }
  EXPECT_GE(valid, 10);
  EXPECT_GE(locations.size(), 3u); // root and several loops of the consumer
}

TEST(SearchMutation, ParallelChangesHowManyOuterLoopsAreFused) {
  const te::Workload workload = te::lowerTask(addReluTask());
  int changed = 0;
  for (std::uint64_t seed = 0; seed < 30; ++seed) {
    const Steps steps = sample(workload, 1, seed, {.cores = 1}).front();
    Rng rng(seed);
    const std::optional<Steps> mutated = mutateParallel(workload, steps, rng);
    if (!mutated)
      continue;
    const auto fusedCount = [](const Steps& list) {
      for (const schedule::Step& step : list)
        if (const auto* fuse = std::get_if<schedule::FuseStep>(&step))
          return static_cast<int>(fuse->iterators.size());
      return 1;
    };
    EXPECT_NE(fusedCount(*mutated), fusedCount(steps)) << json(steps);
    ASSERT_TRUE(makeCandidate(workload, *mutated)) << json(*mutated);
    EXPECT_TRUE(matchesReference(workload, *mutated));
    ++changed;
  }
  EXPECT_GE(changed, 10);
}

TEST(SearchMutation, MutationsByWeightMostlyLowerAndAlwaysComputeTheReference) {
  const te::Workload workload = te::lowerTask(convBiasReluTask());
  const std::vector<Sketch> sketches = generateSketches(workload);
  const std::vector<Steps> parents = sample(workload, 20, 9, {.cores = 2});
  int lowered = 0, tried = 0;
  for (std::uint64_t seed = 0; seed < 60; ++seed) {
    const Steps& parent = parents[seed % parents.size()];
    const int index = findSketch(sketches, parent);
    Rng rng(seed);
    const std::optional<Steps> mutated =
        mutate(workload, &sketches[static_cast<std::size_t>(index)], parent, {}, rng);
    if (!mutated)
      continue;
    ++tried;
    if (!makeCandidate(workload, *mutated))
      continue;
    ++lowered;
    if (lowered % 5 == 0) {
      EXPECT_TRUE(matchesReference(workload, *mutated)) << json(*mutated);
    }
  }
  EXPECT_GE(tried, 40);
  EXPECT_GE(lowered, tried / 2);
}

} // namespace
