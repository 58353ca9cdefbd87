// The two reconstruction objectives of the graph autoencoder (DESIGN §6, REFERENCES.md "Graph
// autoencoder"). The structure loss is Kipf & Welling's: the inner-product decoder σ(z_i·z_j)
// against the labels A + I, as a binary cross-entropy whose positive terms are up-weighted by
// pos_weight (edges are rare among node pairs) and rescaled by norm. In a batch only pairs
// within one graph are scored: the graphs are separate tasks, so a pair across two of them is
// neither an edge nor a meaningful non-edge. The feature loss makes the embedding keep the node
// attributes too, which matter because task graphs are small.
#pragma once

#include "nn/Parameter.h"

#include <utility>
#include <vector>

namespace clustune::gae {

struct StructureLossValue {
  double value = 0;
  nn::Matrix gradient;       // d value / d Z, same shape as Z
  double positiveWeight = 0; // pos_weight = (P − E⁺) / E⁺
  double norm = 0;           // P / (2 (P − E⁺))
  long long pairs = 0;       // P = Σ_g n_g², the ordered within-graph pairs, i = j included
  long long positives = 0;   // E⁺ = Σ_g n_g + 2 · edges, the 1 entries of A + I
};

// −log σ(x) and −log(1 − σ(x)) without overflow for any finite x.
double softplus(double x);

// Kipf's weighted BCE with logits over the within-graph pairs of Z (graph g owns rows
// [graphOffsets[g], graphOffsets[g+1])): logits z_i·z_j, labels 1 for i = j and for both
// directions of every edge (batch indices, i<j, each edge within one graph), 0 otherwise;
// loss = norm · (1/P) Σ_pairs [pos_weight · y · softplus(−x) + (1 − y) · softplus(x)].
// When the batch has no negative pair (every graph complete), pos_weight and norm are 1: the
// paper's formulas would divide by zero, and a plain mean BCE is the natural limit to train on.
StructureLossValue structureLoss(const nn::Matrix& embeddings, const std::vector<int>& graphOffsets,
                                 const std::vector<std::pair<int, int>>& edges);

struct FeatureLossValue {
  double value = 0;
  nn::Matrix gradient; // d value / d reconstruction
};

// Mean over all entries of (reconstruction − target)².
FeatureLossValue featureReconstructionLoss(const nn::Matrix& reconstruction,
                                           const nn::Matrix& target);

} // namespace clustune::gae
