// See LambdaRankPairs.h. The loop body is branch-free so that it vectorises: pairs that do not
// count (a label not lower) get weight 0 rather than a `continue`. The price is the exp and
// log1p of those pairs too, which four lanes at a time still pay for many times over.
#include "nn/LambdaRankPairs.h"

#include <cmath>

namespace clustune::nn {

double accumulateLambdaRankPairs(const LambdaRankList& list, std::size_t firstBetter,
                                 std::size_t lastBetter, double* gradient) {
  double logLikelihood = 0;
  for (std::size_t better = firstBetter; better < lastBetter; ++better) {
    const double betterScore = list.score[better];
    const double betterLabel = list.label[better];
    const double betterGain = list.normalisedGain[better];
    const double betterDiscount = list.inverseDiscount[better];
    double betterSum = 0;
    double rowSum = 0;
    for (std::size_t worse = 0; worse < list.count; ++worse) {
      const double weight = betterLabel > list.label[worse]
                                ? std::fabs(betterDiscount - list.inverseDiscount[worse]) *
                                      std::fabs(betterGain - list.normalisedGain[worse])
                                : 0.0;
      const double margin = list.sigma * (betterScore - list.score[worse]);
      // log σ(margin) = -softplus(-margin) and σ(-margin) share exp(-|margin|).
      const double decay = std::exp(-std::fabs(margin));
      const double logProbability = -(std::fmax(-margin, 0.0) + std::log1p(decay));
      const bool clamped = logProbability < list.minimumLogProbability;
      rowSum += weight * (clamped ? list.minimumLogProbability : logProbability);
      const double sigmoidOfMinusMargin = margin >= 0 ? decay / (1.0 + decay) : 1.0 / (1.0 + decay);
      // A clamped pair is a constant, so it has no gradient (as torch.clamp).
      const double pull = clamped ? 0.0 : weight * sigmoidOfMinusMargin;
      betterSum += pull;
      gradient[worse] += pull;
    }
    gradient[better] -= betterSum;
    logLikelihood += rowSum;
  }
  return logLikelihood;
}

} // namespace clustune::nn
