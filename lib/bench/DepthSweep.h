// Depth sweeps (docs/bench.md, "Depth sweeps"): models of 1..N repeated blocks
// (scripts/make_block_models.py names them <family>_d<depth>), and how latency, throughput and
// the number of distinct tasks grow with the depth under each compiler. A compiler that exploits
// repetition keeps the latency per block flat; clustune's distinct workload keys, which are what
// tuning costs, stay constant.
#pragma once

#include "bench/BenchRow.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace clustune::bench {

// "resnet_basic_d8" → ("resnet_basic", 8); nullopt for a name without a "_d<depth>" suffix.
std::optional<std::pair<std::string, int>> parseDepthName(const std::string& model);

struct DepthPoint {
  std::string family = {};
  std::string compiler = {};
  std::int64_t batch = 1;
  int depth = 1;
  double medianSeconds = 0.0;
  double throughput = 0.0;       // samples per second
  double relativePerBlock = 1.0; // (L(d) / d) / (L(d₀) / d₀), d₀ the smallest depth
  int distinctTasks = 0;         // clustune's compilers only; 0 for peers
};

// Points of every ok row whose model parses as a depth name, ordered by family, compiler,
// batch and depth. Throws Error naming a model that does not.
std::vector<DepthPoint> computeDepthCurves(const std::vector<BenchRow>& rows);

nlohmann::ordered_json toJson(const std::vector<DepthPoint>& points);

} // namespace clustune::bench
