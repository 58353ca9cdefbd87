// The CI regression gate of clustune-bench (--baseline, --max-slowdown): rows slower than the
// baseline's by more than the threshold and more than the runs' own spread, and rows that ran
// in the baseline but fail now.
#pragma once

#include "bench/BenchRow.h"

#include <string>
#include <vector>

namespace clustune::bench {

struct Regression {
  BenchRow current = {};
  BenchRow baseline = {};
  double slowdown = 0.0; // current / baseline median − 1; 0 for a status regression
  double noise = 0.0;    // the larger relative spread of the two rows
};

struct GateResult {
  std::vector<Regression> regressions = {};
  int compared = 0;        // rows matched by (model, batch, compiler), both ok
  int withoutBaseline = 0; // current rows the baseline lacks
  std::vector<std::string> baselineCpus = {},
                           currentCpus = {}; // distinct, for the other-machine warning
};

// `maxSlowdown` is a fraction (0.05 for 5%).
GateResult applyGate(const std::vector<BenchRow>& current, const std::vector<BenchRow>& baseline,
                     double maxSlowdown);

// "5%", "0.05" or "5 %" → 0.05. Throws Error on anything else, or on a negative value.
double parseSlowdown(const std::string& text);

} // namespace clustune::bench
