// The CI regression gate of clustune-bench (--baseline, --max-slowdown): rows slower than the
// baseline's by more than the threshold and more than the runs' own spread, and rows that ran
// in the baseline but fail now.
#pragma once

#include "bench/BenchRow.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace clustune::bench {

struct Regression {
  BenchRow current = {};
  BenchRow baseline = {};
  double slowdown = 0.0; // current / baseline median − 1; 0 for a status regression
  double noise = 0.0;    // the larger relative spread of the two rows
  std::vector<double> rerunMedianSeconds = {}; // confirmRegressions' runs, each slower too
};

struct GateResult {
  std::vector<Regression> regressions = {};
  int compared = 0;        // rows matched by (model, batch, compiler), both ok
  int withoutBaseline = 0; // current rows the baseline lacks
  int otherThreads = 0;    // rows compared with a baseline row run on another thread count
  std::vector<std::string> baselineCpus = {},
                           currentCpus = {}; // distinct, for the other-machine warning
};

// `maxSlowdown` is a fraction (0.05 for 5%).
GateResult applyGate(const std::vector<BenchRow>& current, const std::vector<BenchRow>& baseline,
                     double maxSlowdown);

// The regression `current` is against `baseline` (both timed): slower by more than the threshold
// and more than the noise; nothing otherwise.
std::optional<Regression> compareTimedRows(const BenchRow& current, const BenchRow& baseline,
                                           double maxSlowdown);

// Measures each timed regression again (`remeasure` returns a fresh row of the same model,
// batch and compiler), up to `attempts` times, and keeps it only while every run stays a
// regression: on a shared machine the speed drifts between two runs by more than the spread
// within one, and a gate must not fail on that. Regressions of status are kept as they are.
// Returns the number cleared.
int confirmRegressions(GateResult& result, double maxSlowdown, int attempts,
                       const std::function<BenchRow(const BenchRow&)>& remeasure);

// "5%", "0.05" or "5 %" → 0.05. Throws Error on anything else, or on a negative value.
double parseSlowdown(const std::string& text);

} // namespace clustune::bench
