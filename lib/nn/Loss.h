// The training objectives of the cost models, over one list of predicted scores and their labels
// (normalised throughputs: higher is better). Tenset trains its MLP model with LambdaRank, which
// weighs each misordered pair by how much it costs NDCG, because the search only needs the best
// candidates ranked first; mean squared error and RankNet are the baselines it is compared with.
// Each loss returns its value and its gradient with respect to the predictions, which the
// caller feeds back through the model's backward().
#pragma once

#include "nn/Parameter.h"

namespace clustune::nn {

struct LossValue {
  double value = 0;
  Vector gradient; // d value / d predictions, same size as the predictions
};

// Mean over the n items of (p - l)²; 0 for an empty list.
LossValue meanSquaredError(const Vector& predictions, const Vector& labels);

// Tenset's LambdaRank (its lambdarank_loss, from allRank), over one list. Sort by prediction
// descending (a stable sort, so ties keep index order); rank r = 1..n; D(r) = log2(1 + r);
// G_i = (2^max(label_i, 0) - 1) / maxDCG, maxDCG = Σ_r (2^max(label sorted desc, 0) - 1) / D(r),
// at least 1e-10. For each pair (i, j) with label_i > label_j,
// w_ij = |1/D(r_i) - 1/D(r_j)| · |G_i - G_j| and
// loss = -Σ w_ij · log2(max(sigmoid(sigma · (s_i - s_j)), 1e-10)). The weights depend only on the
// order, so they are constants for the gradient, as in Tenset. Value 0, zero gradient for n < 2.
LossValue lambdaRank(const Vector& predictions, const Vector& labels, float sigma = 1.0f);

// RankNet: mean over the pairs (i, j) with label_i > label_j of log(1 + exp(-sigma · (s_i - s_j)));
// 0 with no such pair.
LossValue rankNet(const Vector& predictions, const Vector& labels, float sigma = 1.0f);

} // namespace clustune::nn
