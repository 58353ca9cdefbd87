// The timing loop of measurement (measure/Timing.h), with a counting stand-in for a kernel: how
// many runs happen, how `number` grows to reach min_repeat_ms, and Tenset's settings. Nothing
// here passes or fails on how fast the machine is, only on lower bounds that sleeping enforces.
#include "measure/Timing.h"
#include "support/Error.h"

#include <chrono>
#include <gtest/gtest.h>
#include <thread>

using namespace clustune;
using namespace clustune::measure;

namespace {

// A stand-in kernel that counts its runs and sleeps, so that every run lasts at least `ms`.
auto sleepingKernel(int& runs, int ms) {
  return [&runs, ms] {
    ++runs;
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  };
}

TEST(MeasureTimingTest, OneWarmUpThenNumberTimesRepeatRuns) {
  int runs = 0;
  const auto costs = timeRuns([&] { ++runs; }, {.number = 3, .repeat = 4, .minRepeatMs = 0});
  EXPECT_EQ(costs.size(), 4u);
  EXPECT_EQ(runs, 1 + 3 * 4);
}

TEST(MeasureTimingTest, NumberGrowsUntilARepeatLastsTheMinimum) {
  int runs = 0;
  const auto costs = timeRuns(
      [&] {
        ++runs;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      },
      {.number = 1, .repeat = 3, .minRepeatMs = 20});
  ASSERT_EQ(costs.size(), 3u);
  // Sleeps last at least their duration, so a run costs at least 200 µs; every counted repeat
  // lasted >= 20 ms, so a cost per repeat instead of per run would be >= 20 ms.
  EXPECT_GE(runs, 1 + 3 * 2);
  for (double cost : costs) {
    EXPECT_GE(cost, 200e-6);
    EXPECT_LT(cost, 10e-3);
  }
}

TEST(MeasureTimingTest, AWarmUpSlowerThanTheCutoffIsFollowedByOneRepeat) {
  int runs = 0;
  const auto slow = sleepingKernel(runs, 2);
  // A sleep of 2 ms always lasts longer than the 1 ms cutoff.
  const auto costs =
      timeRuns(slow, {.number = 4, .repeat = 3, .minRepeatMs = 0, .slowRunSeconds = 1e-3});
  ASSERT_EQ(costs.size(), 1u);
  EXPECT_EQ(runs, 1 + 4);
  EXPECT_GE(costs[0], 2e-3);
  // A cutoff the warm-up stays under (no sleep lasts an hour) changes nothing.
  runs = 0;
  EXPECT_EQ(
      timeRuns(slow, {.number = 1, .repeat = 3, .minRepeatMs = 0, .slowRunSeconds = 3600}).size(),
      3u);
  EXPECT_EQ(runs, 4);
}

TEST(MeasureTimingTest, AHopelessWarmUpLongerThanARepeatIsTheOnlyRun) {
  int runs = 0;
  const auto slow = sleepingKernel(runs, 12);
  // The 12-ms warm-up lasts a whole 5-ms repeat and the 10 ms below which a first run is no
  // measurement: it stands for the repeat.
  const auto costs =
      timeRuns(slow, {.number = 1, .repeat = 3, .minRepeatMs = 5, .slowRunSeconds = 1e-3});
  ASSERT_EQ(costs.size(), 1u);
  EXPECT_EQ(runs, 1);
  EXPECT_GE(costs[0], 12e-3);
  // A repeat longer than the warm-up is still timed.
  runs = 0;
  EXPECT_EQ(
      timeRuns(slow, {.number = 1, .repeat = 3, .minRepeatMs = 20, .slowRunSeconds = 1e-3}).size(),
      1u);
  EXPECT_GE(runs, 3);
}

TEST(MeasureTimingTest, TheOneRepeatOfAHopelessShortKernelStillLastsTheMinimumTime) {
  // A warm-up that pays a first-call cost, then microsecond runs: one run alone would time the
  // clock, so the single repeat is raised to the minimum like every other.
  int runs = 0;
  const auto firstSlow = [&] {
    if (runs++ == 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
  };
  const auto costs =
      timeRuns(firstSlow, {.number = 1, .repeat = 3, .minRepeatMs = 1, .slowRunSeconds = 1e-3});
  ASSERT_EQ(costs.size(), 1u);
  EXPECT_GT(runs, 2);
  EXPECT_LT(costs[0], 1e-3);
}

TEST(MeasureTimingTest, CacheFlushingExcludesTheFlushFromTheCost) {
  int runs = 0;
  const auto costs =
      timeRuns([&] { ++runs; }, {.number = 2, .repeat = 2, .minRepeatMs = 0, .cacheFlush = true});
  EXPECT_EQ(runs, 1 + 2 * 2);
  // An empty run costs far less than writing a buffer of the cache's size.
  for (double cost : costs)
    EXPECT_LT(cost, 1e-3);
  EXPECT_GE(cacheFlushBytes(), std::int64_t{1} << 20);
}

TEST(MeasureTimingTest, WithCacheFlushingTheMinimumRepeatCountsTheFlushes) {
  // An empty run takes nanoseconds and a flush at least tens of microseconds: counted in kernel
  // time alone, 5 ms would take hundreds of thousands of flushes.
  int runs = 0;
  const auto costs =
      timeRuns([&] { ++runs; }, {.number = 1, .repeat = 2, .minRepeatMs = 5, .cacheFlush = true});
  ASSERT_EQ(costs.size(), 2u);
  EXPECT_LT(runs, 10'000);
}

TEST(MeasureTimingTest, ColdWeightsEvictBeforeEveryRunTheWarmUpIncluded) {
  int runs = 0, evictions = 0, runsAfterAnEviction = 0;
  bool evicted = false;
  const auto costs = timeRuns(
      [&] {
        ++runs;
        runsAfterAnEviction += evicted;
        evicted = false;
      },
      {.number = 3, .repeat = 2, .minRepeatMs = 0, .coldWeights = true},
      [&] {
        ++evictions;
        evicted = true;
      });
  ASSERT_EQ(costs.size(), 2u);
  // The warm-up too: a hopeless candidate's warm-up can stand as its cost.
  EXPECT_EQ(runs, 1 + 3 * 2);
  EXPECT_EQ(evictions, 1 + 3 * 2);
  EXPECT_EQ(runsAfterAnEviction, 1 + 3 * 2);
}

TEST(MeasureTimingTest, WarmTimingAndCacheFlushingNeverEvictWeights) {
  int evictions = 0;
  const auto evict = [&] { ++evictions; };
  timeRuns([] {}, {.number = 2, .repeat = 2, .minRepeatMs = 0}, evict);
  timeRuns([] {},
           {.number = 2, .repeat = 2, .minRepeatMs = 0, .cacheFlush = true, .coldWeights = true},
           evict);
  EXPECT_EQ(evictions, 0);
}

TEST(MeasureTimingTest, WithColdWeightsTheMinimumRepeatCountsTheEvictions) {
  // An eviction of a few milliseconds before a run of nanoseconds: counted in kernel time
  // alone, a repeat of 5 ms would evict millions of times.
  int evictions = 0;
  const auto costs =
      timeRuns([] {}, {.number = 1, .repeat = 2, .minRepeatMs = 5, .coldWeights = true},
               [&] {
                 ++evictions;
                 std::this_thread::sleep_for(std::chrono::milliseconds(2));
               });
  ASSERT_EQ(costs.size(), 2u);
  EXPECT_LT(evictions, 20);
}

TEST(MeasureTimingTest, EvictingKeepsTheData) {
  std::vector<float> data(100'000);
  for (std::size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<float>(i) * 0.5f;
  const std::vector<float> before = data;
  evictFromCaches(data.data(), data.size() * sizeof(float));
  evictFromCaches(data.data() + 1, 3); // a range that starts and ends inside lines
  EXPECT_EQ(data, before);
}

TEST(MeasureTimingTest, RejectsEmptySettings) {
  EXPECT_THROW(timeRuns([] {}, {.number = 0}), Error);
  EXPECT_THROW(timeRuns([] {}, {.repeat = 0}), Error);
}

TEST(MeasureTimingTest, TensetRepeatsFallWithFlops) {
  EXPECT_EQ(tensetTimingOptions(3'000'000'000).repeat, 4);
  EXPECT_EQ(tensetTimingOptions(2'400'000'000).repeat, 4);
  EXPECT_EQ(tensetTimingOptions(840'000'000).repeat, 6);
  EXPECT_EQ(tensetTimingOptions(100'000'000).repeat, 8);
  EXPECT_EQ(tensetTimingOptions(2'100'000).repeat, 10);
  const TimingOptions options = tensetTimingOptions(1);
  EXPECT_EQ(options.number, 1);
  EXPECT_TRUE(options.cacheFlush);
  EXPECT_EQ(options.minRepeatMs, 0);
}

} // namespace
