// The inner loop of LambdaRank (nn/Loss.h): the pairs of a range of better items against every
// item of the list. Kept apart from Loss.cpp because it is compiled with -ffast-math, which lets
// the compiler call glibc's vector exp and log1p (libmvec) and run four pairs at a time; the
// rest of the loss code keeps strict IEEE semantics and its checks for non-finite inputs.
#pragma once

#include <cstddef>

namespace clustune::nn {

// Per position of the list in prediction order. Every value must be finite.
struct LambdaRankList {
  const double* score;
  const double* label;
  const double* normalisedGain;
  const double* inverseDiscount;
  std::size_t count;
  double sigma;
  double minimumLogProbability;
};

// For the better items [firstBetter, lastBetter) and each item with a lower label, adds w · σ(-m)
// to gradient[worse] and subtracts it from gradient[better] (m the pair's sigma-scaled margin;
// none for a clamped pair), and returns Σ w · max(log σ(m), log 1e-10) in natural logarithms.
double accumulateLambdaRankPairs(const LambdaRankList& list, std::size_t firstBetter,
                                 std::size_t lastBetter, double* gradient);

} // namespace clustune::nn
