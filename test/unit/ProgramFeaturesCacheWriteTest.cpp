// Program features (lib/features) of schedules that use cache_write and rfactor: the local
// accumulator of a cache computed at the copy's tile carries Ansor's allocation features (its
// size, and how many times it is allocated), the copy's store none, and sampled schedules with
// either step give one finite vector per store.
#include "ScheduleTestSupport.h"
#include "features/ProgramFeatures.h"
#include "schedule/Lower.h"
#include "schedule/State.h"
#include "search/Sample.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace clustune;
using namespace clustune::features;
namespace ix = clustune::features::index;
namespace st = clustune::schedule::testing;

namespace {

TEST(ProgramFeaturesCacheWrite, TheTileAccumulatorHasAllocationFeatures) {
  const st::TestWorkload test = st::matmul(16, 24, 8);
  using namespace clustune::schedule;
  // Copy tiled 4 x 3 tiles of 4 x 8; the cache computed per tile into 32 floats.
  const State state =
      replay(test.workload,
             {CacheWriteStep{.stage = 0}, SplitStep{.stage = 1, .iterator = 0, .factors = {4}},
              SplitStep{.stage = 1, .iterator = 2, .factors = {8}},
              ReorderStep{.stage = 1, .order = {0, 2, 1, 3}},
              ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = 1}});
  const te::LoweredFunction function = lower(test.workload, state, "f");
  const auto features = extractProgramFeatures(function);
  ASSERT_EQ(features.size(), 3u) << te::toString(function);
  const StoreFeatures &init = features[0], &update = features[1], &copy = features[2];
  for (const StoreFeatures* f : {&init, &update}) {
    EXPECT_FLOAT_EQ(f->values[ix::kAllocationSize], slog(32 * 4));
    EXPECT_FLOAT_EQ(f->values[ix::kAllocationOuterProduct], slog(4 * 3));
    EXPECT_FLOAT_EQ(f->values[ix::kAllocationProduct], slog(32 * 4 * 3));
  }
  EXPECT_FLOAT_EQ(init.values[ix::kAllocationInnerProduct], slog(32));
  EXPECT_FLOAT_EQ(update.values[ix::kAllocationInnerProduct], slog(32 * 8));
  EXPECT_EQ(copy.values[ix::kAllocationSize], 0.0f); // C is an argument
  EXPECT_FLOAT_EQ(update.values[ix::kFloatMad], slog(16 * 24 * 8));
  EXPECT_FLOAT_EQ(copy.values[ix::kOuterProduct], slog(16 * 24));
}

TEST(ProgramFeaturesCacheWrite, SampledCacheWriteAndRfactorSchedulesGiveFiniteVectors) {
  int cached = 0, factored = 0;
  for (const st::TestWorkload& test :
       {st::matmul(4, 24, 256), st::softmax(4, 64), st::paddedConvolution(3, 4, 6, 6)}) {
    for (const auto& steps : search::sample(test.workload, 12, 5, {.cores = 2})) {
      for (const schedule::Step& step : steps) {
        cached += std::holds_alternative<schedule::CacheWriteStep>(step);
        factored += std::holds_alternative<schedule::RfactorStep>(step);
      }
      const te::LoweredFunction function =
          schedule::lower(test.workload, schedule::replay(test.workload, steps), "f");
      const auto features = extractProgramFeatures(function);
      ASSERT_EQ(features.size(), clustune::schedule::testing::countStores(function.body));
      for (const StoreFeatures& store : features)
        for (float value : store.values)
          ASSERT_TRUE(std::isfinite(value)) << te::toString(function);
    }
  }
  EXPECT_GT(cached, 0);
  EXPECT_GT(factored, 0);
}

} // namespace
