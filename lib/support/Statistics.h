// Order statistics for timings: medians and percentiles of repeated measurements, which are
// what clustune reports (means are misleading on shared, noisy machines).
#pragma once

#include <vector>

namespace clustune {

// The q-quantile (0 ≤ q ≤ 1) with linear interpolation between order statistics, as numpy's
// default; 0 for an empty sample.
double quantile(std::vector<double> sample, double q);
inline double median(std::vector<double> sample) {
  return quantile(std::move(sample), 0.5);
}

} // namespace clustune
