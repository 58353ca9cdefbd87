// A seeded random number generator whose streams are identical on every platform and standard
// library: xoshiro256** seeded through SplitMix64, with our own uniform and normal sampling
// (std::uniform_real_distribution and friends are implementation-defined, which would make
// `--seed` results differ between machines).
#pragma once

#include <cassert>
#include <cstdint>
#include <vector>

namespace clustune {

class Rng {
public:
  explicit Rng(std::uint64_t seed);

  std::uint64_t next();
  // Uniform in [0, bound); bound must be positive. Unbiased (rejection sampling).
  std::uint64_t uniformInt(std::uint64_t bound);
  // Uniform in [low, high].
  std::int64_t uniformInt(std::int64_t low, std::int64_t high);
  // Uniform in [0, 1) with 53 random bits.
  double uniform();
  double uniform(double low, double high);
  // Standard normal by the Box-Muller transform.
  double normal();
  double normal(double mean, double stddev);

  // An independent stream for a sub-computation (a task, a thread), so that results do not
  // depend on the order in which sub-computations run.
  Rng fork(std::uint64_t streamId) const;

  // A uniformly chosen element; `items` must not be empty.
  template <class T>
  const T& pick(const std::vector<T>& items) {
    assert(!items.empty());
    return items[uniformInt(static_cast<std::uint64_t>(items.size()))];
  }

  template <class T>
  void shuffle(std::vector<T>& items) {
    for (std::size_t i = items.size(); i > 1; --i)
      std::swap(items[i - 1], items[uniformInt(i)]);
  }

private:
  std::uint64_t state_[4];
  std::uint64_t seed_;
  bool hasSpareNormal_ = false;
  double spareNormal_ = 0.0;
};

} // namespace clustune
