// See Statistics.h.
#include "support/Statistics.h"

#include <algorithm>
#include <cmath>

namespace clustune {

double quantile(std::vector<double> sample, double q) {
  if (sample.empty())
    return 0.0;
  std::sort(sample.begin(), sample.end());
  const double position = q * static_cast<double>(sample.size() - 1);
  const auto lower = static_cast<std::size_t>(std::floor(position));
  const auto upper = std::min(lower + 1, sample.size() - 1);
  const double fraction = position - static_cast<double>(lower);
  return sample[lower] + fraction * (sample[upper] - sample[lower]);
}

} // namespace clustune
