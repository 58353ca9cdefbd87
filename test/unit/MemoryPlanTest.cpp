// Memory planning of the graph executor: blocks are reused only between tensors whose lifetimes
// do not overlap, checked on a chain and on random lifetimes.
#include "executor/MemoryPlan.h"

#include "support/Random.h"

#include <gtest/gtest.h>

using namespace clustune;
using executor::planMemory;
using executor::TensorLifetime;

TEST(MemoryPlan, ChainReusesTheBlockOfATensorNoLongerRead) {
  // a (step 0) is read by step 1, which makes b; b is read by step 2, which makes c.
  const std::vector<TensorLifetime> chain = {{100, 0, 1}, {100, 1, 2}, {100, 2, 3}};
  const auto plan = planMemory(chain);
  EXPECT_EQ(plan.unsharedBytes, 3 * 128);
  EXPECT_EQ(plan.arenaBytes, 2 * 128);
  EXPECT_EQ(plan.offsets[2], plan.offsets[0]); // c takes a's block, never b's
  EXPECT_NE(plan.offsets[1], plan.offsets[0]);
}

TEST(MemoryPlan, OffsetsAreAligned) {
  const auto plan = planMemory({{3, 0, 5}, {70, 1, 5}, {1, 2, 5}});
  for (auto offset : plan.offsets)
    EXPECT_EQ(offset % 64, 0);
}

TEST(MemoryPlan, LiveTensorsNeverOverlapOnRandomLifetimes) {
  Rng rng(5);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<TensorLifetime> tensors;
    for (std::size_t step = 0; step < 40; ++step)
      tensors.push_back(
          {rng.uniformInt(1, 5000), step, step + static_cast<std::size_t>(rng.uniformInt(0, 6))});
    const auto plan = planMemory(tensors);
    EXPECT_LE(plan.arenaBytes, plan.unsharedBytes);
    for (std::size_t i = 0; i < tensors.size(); ++i)
      for (std::size_t j = i + 1; j < tensors.size(); ++j) {
        const bool liveTogether = tensors[i].firstStep <= tensors[j].lastStep &&
                                  tensors[j].firstStep <= tensors[i].lastStep;
        const bool memoryOverlaps = plan.offsets[i] < plan.offsets[j] + tensors[j].bytes &&
                                    plan.offsets[j] < plan.offsets[i] + tensors[i].bytes;
        ASSERT_FALSE(liveTogether && memoryOverlaps) << "tensors " << i << " and " << j;
      }
  }
}
