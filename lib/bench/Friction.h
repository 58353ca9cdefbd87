// Batch-size friction (docs/bench.md, "Friction metrics"): how a compiler's per-sample latency
// and throughput change as the batch grows, one coefficient per compiler, and the pairs of
// models whose order by latency two compilers disagree on. Pure functions of the rows, so they
// can be recomputed from any bench.jsonl.
#pragma once

#include "bench/BenchRow.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace clustune::bench {

// One point of a (model, compiler) curve, relative to the sweep's smallest batch b0.
struct CurvePoint {
  std::string model = {};
  std::string compiler = {};
  std::int64_t batch = 1;
  double relativePerSample = 1.0; // r(b) = ℓ(b) / ℓ(b0), ℓ the per-sample latency
  double efficiency = 1.0;        // E(b) = T(b) / ((b/b0) · T(b0)), T the throughput
};

struct CompilerFriction {
  std::string compiler = {};
  double coefficient = 0.0; // F = mean of log2 r(b) over every model and every b > b0
  int points = 0;           // the (model, b) pairs averaged
  // F(default) − F(compiler) over the points both have: positive when the compiler loses less
  // per sample to growing batches than clustune's default schedules. NaN without "default".
  double reductionVsDefault = 0.0;
  int sharedPoints = 0;
};

struct RankingReversal {
  std::int64_t batch = 1;
  std::string modelA = {}, modelB = {};
  std::string compilerA = {},
              compilerB = {}; // compilerA runs modelA faster than modelB, compilerB not
};

struct FrictionReport {
  std::int64_t referenceBatch = 1; // b0
  std::vector<CurvePoint> curves = {};
  std::vector<CompilerFriction> compilers = {};
  std::vector<RankingReversal> reversals = {};
};

// Uses the rows with status ok; a (model, compiler) without a row at b0 has no curve.
FrictionReport computeFriction(const std::vector<BenchRow>& rows);

nlohmann::ordered_json toJson(const FrictionReport& report);

} // namespace clustune::bench
