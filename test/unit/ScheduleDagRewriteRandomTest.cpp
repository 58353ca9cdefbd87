// Random legal schedules that mix cache_write and rfactor with every other step: whatever
// sequence State accepts must lower to a program that computes the plain reference's values,
// must replay identically from its JSON, and the renumbering must keep every compute_at
// pointing at the stage it named (checked through the values).
#include "ScheduleTestSupport.h"
#include "schedule/Lower.h"
#include "schedule/State.h"
#include "support/Random.h"

#include <gtest/gtest.h>

using namespace clustune::schedule;
using namespace clustune::schedule::testing;
namespace te = clustune::te;

namespace {

Step randomStep(clustune::Rng& rng, const State& state) {
  const int stageIndex = static_cast<int>(rng.uniformInt(state.stages().size()));
  const Stage& stage = state.stages()[stageIndex];
  const int loops = static_cast<int>(std::max<std::size_t>(stage.loops.size(), 1));
  const int iterator = static_cast<int>(rng.uniformInt(loops));
  switch (rng.uniformInt(12)) {
  case 0:
  case 1: {
    const std::int64_t extent = stage.loops.empty() ? 1 : stage.loop(iterator).extent;
    return SplitStep{.stage = stageIndex,
                     .iterator = iterator,
                     .factors = {rng.uniformInt(1, std::max<std::int64_t>(extent, 1))}};
  }
  case 2:
    return FuseStep{.stage = stageIndex, .iterators = {iterator, iterator + 1}};
  case 3: {
    std::vector<int> order;
    for (int position = 0; position < loops; ++position)
      order.push_back(position);
    rng.shuffle(order);
    return ReorderStep{.stage = stageIndex, .order = order};
  }
  case 4: {
    const Annotation annotations[] = {Annotation::Parallel, Annotation::Vectorize,
                                      Annotation::Unroll};
    return AnnotationStep{
        .stage = stageIndex, .iterator = iterator, .annotation = annotations[rng.uniformInt(3)]};
  }
  case 5:
  case 6: {
    const int target = static_cast<int>(rng.uniformInt(state.stages().size()));
    const std::size_t targetLoops = std::max<std::size_t>(state.stages()[target].loops.size(), 1);
    return ComputeAtStep{.stage = stageIndex,
                         .targetStage = target,
                         .targetIterator = static_cast<int>(rng.uniformInt(targetLoops))};
  }
  case 7:
    return ComputeInlineStep{.stage = stageIndex};
  case 8:
  case 9:
    return CacheWriteStep{.stage = stageIndex};
  default:
    return RfactorStep{.stage = stageIndex,
                       .iterator = iterator,
                       .factorIteratorPosition = static_cast<int>(rng.uniformInt(
                           static_cast<std::uint64_t>(std::max(stage.spatialAxisCount(), 0) + 1)))};
  }
}

TEST(ScheduleDagRewriteRandom, RandomSchedulesWithCacheWriteAndRfactorComputeTheReference) {
  const TestWorkload workloads[] = {
      elementwiseChain(5, 7), matmul(6, 10, 7), paddedConvolution(2, 3, 5, 6),
      softmax(3, 10),         stencilChain(9),  totalSum(4, 5)};
  int cacheWrites = 0, rfactors = 0;
  for (std::uint64_t seed : {77, 78, 79}) {
    clustune::Rng rng(seed);
    for (const TestWorkload& test : workloads) {
      for (int schedule = 0; schedule < 30; ++schedule) {
        State state = initialState(test.workload);
        for (int attempt = 0; attempt < 14; ++attempt) {
          const Step step = randomStep(rng, state);
          try {
            state = applyStep(state, step);
            cacheWrites += std::holds_alternative<CacheWriteStep>(step);
            rfactors += std::holds_alternative<RfactorStep>(step);
          } catch (const InvalidScheduleError&) {
          }
        }
        ASSERT_TRUE(matchesReference(test, state)) << toString(state) << "\n"
                                                   << toJson(state.steps()).dump();
        const State replayed = replay(
            test.workload, stepsFromJson(nlohmann::json::parse(toJson(state.steps()).dump())));
        EXPECT_EQ(te::toString(lower(test.workload, replayed, "f")),
                  te::toString(lower(test.workload, state, "f")));
      }
    }
  }
  EXPECT_GT(cacheWrites, 90);
  EXPECT_GT(rfactors, 60);
}

} // namespace
