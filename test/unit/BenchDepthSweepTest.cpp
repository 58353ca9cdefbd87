// Depth curves: names of block models, and latency per block relative to the smallest depth.
#include "bench/DepthSweep.h"
#include "support/Error.h"

#include <gtest/gtest.h>

using namespace clustune;
using namespace clustune::bench;

TEST(BenchDepthSweep, BlockModelNamesGiveFamilyAndDepth) {
  EXPECT_EQ(parseDepthName("resnet_basic_d8"), (std::pair<std::string, int>{"resnet_basic", 8}));
  EXPECT_EQ(parseDepthName("transformer_d12"), (std::pair<std::string, int>{"transformer", 12}));
  for (const char* bad : {"resnet18", "_d3", "block_d", "block_d0", "block_d3x", "block_dx3"})
    EXPECT_FALSE(parseDepthName(bad)) << bad;
}

TEST(BenchDepthSweep, LatencyPerBlockIsRelativeToTheShallowestModel) {
  auto row = [](const std::string& model, const std::string& compiler, double ms, int distinct) {
    return BenchRow{.model = model,
                    .batch = 1,
                    .compiler = compiler,
                    .medianSeconds = ms * 1e-3,
                    .p90Seconds = ms * 1e-3,
                    .distinctTasks = distinct};
  };
  // Rows out of order; default's blocks cost the same at every depth, ort's get cheaper.
  const auto points =
      computeDepthCurves({row("blk_d4", "default", 40, 3), row("blk_d1", "default", 10, 3),
                          row("blk_d1", "ort", 8, 0), row("blk_d4", "ort", 16, 0)});
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points[0].compiler, "default");
  EXPECT_EQ(points[0].depth, 1);
  EXPECT_EQ(points[1].depth, 4);
  EXPECT_DOUBLE_EQ(points[1].relativePerBlock, 1.0);
  EXPECT_EQ(points[1].distinctTasks, 3);
  EXPECT_DOUBLE_EQ(points[3].relativePerBlock, 0.5);
  EXPECT_DOUBLE_EQ(points[3].throughput, 1000.0 / 16);
  EXPECT_THROW(computeDepthCurves({row("resnet18", "default", 1, 1)}), Error);
}
