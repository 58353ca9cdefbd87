// See Random.h.
#include "support/Random.h"

#include <cassert>
#include <cmath>
#include <numbers>

namespace clustune {
namespace {

std::uint64_t splitMix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t rotateLeft(std::uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}

} // namespace

Rng::Rng(std::uint64_t seed) : seed_(seed) {
  std::uint64_t state = seed;
  for (auto& word : state_)
    word = splitMix64(state);
}

std::uint64_t Rng::next() {
  const std::uint64_t result = rotateLeft(state_[1] * 5, 7) * 9;
  const std::uint64_t t = state_[1] << 17;
  state_[2] ^= state_[0];
  state_[3] ^= state_[1];
  state_[1] ^= state_[2];
  state_[0] ^= state_[3];
  state_[2] ^= t;
  state_[3] = rotateLeft(state_[3], 45);
  return result;
}

std::uint64_t Rng::uniformInt(std::uint64_t bound) {
  assert(bound > 0);
  const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % bound);
  std::uint64_t value;
  do {
    value = next();
  } while (value >= limit);
  return value % bound;
}

std::int64_t Rng::uniformInt(std::int64_t low, std::int64_t high) {
  assert(low <= high);
  const auto span = static_cast<std::uint64_t>(high - low) + 1;
  if (span == 0) // the full 64-bit range
    return static_cast<std::int64_t>(next());
  return low + static_cast<std::int64_t>(uniformInt(span));
}

double Rng::uniform() {
  return static_cast<double>(next() >> 11) * 0x1.0p-53;
}

double Rng::uniform(double low, double high) {
  return low + (high - low) * uniform();
}

double Rng::normal() {
  if (hasSpareNormal_) {
    hasSpareNormal_ = false;
    return spareNormal_;
  }
  double u1;
  do {
    u1 = uniform();
  } while (u1 <= 0.0);
  const double u2 = uniform();
  const double radius = std::sqrt(-2.0 * std::log(u1));
  const double angle = 2.0 * std::numbers::pi * u2;
  spareNormal_ = radius * std::sin(angle);
  hasSpareNormal_ = true;
  return radius * std::cos(angle);
}

double Rng::normal(double mean, double stddev) {
  return mean + stddev * normal();
}

Rng Rng::fork(std::uint64_t streamId) const {
  std::uint64_t mix = seed_ ^ (streamId * 0xd1342543de82ef95ULL);
  return Rng(splitMix64(mix));
}

} // namespace clustune
