// Each graph's block of logits is formed densely (Z_g·Z_gᵀ): task graphs have tens of nodes, so
// Σ_g n_g² stays far below N², and the block-diagonal structure is never materialised.
#include "gae/GaeLoss.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace clustune::gae {

double softplus(double x) {
  // log(1 + e^x) = max(x, 0) + log1p(e^−|x|): the exponent is never positive.
  return std::max(x, 0.0) + std::log1p(std::exp(-std::abs(x)));
}

namespace {

double sigmoid(double x) {
  if (x >= 0)
    return 1.0 / (1.0 + std::exp(-x));
  const double e = std::exp(x);
  return e / (1.0 + e);
}

} // namespace

StructureLossValue structureLoss(const nn::Matrix& embeddings, const std::vector<int>& graphOffsets,
                                 const std::vector<std::pair<int, int>>& edges) {
  assert(!graphOffsets.empty() && graphOffsets.back() == embeddings.rows());
  StructureLossValue result;
  result.gradient = nn::Matrix::Zero(embeddings.rows(), embeddings.cols());
  for (std::size_t graph = 0; graph + 1 < graphOffsets.size(); ++graph) {
    const long long nodes = graphOffsets[graph + 1] - graphOffsets[graph];
    result.pairs += nodes * nodes;
    result.positives += nodes;
  }
  result.positives += 2 * static_cast<long long>(edges.size());
  if (result.pairs == 0)
    return result;
  const long long negatives = result.pairs - result.positives;
  assert(negatives >= 0);
  if (negatives > 0) {
    result.positiveWeight = static_cast<double>(negatives) / static_cast<double>(result.positives);
    result.norm = static_cast<double>(result.pairs) / (2.0 * static_cast<double>(negatives));
  } else {
    result.positiveWeight = 1;
    result.norm = 1;
  }
  const double scale = result.norm / static_cast<double>(result.pairs);

  // Edges grouped by graph: each graph's block gets its labels from its own edges.
  std::vector<std::vector<std::pair<int, int>>> edgesOfGraph(graphOffsets.size() - 1);
  for (const auto& edge : edges) {
    const auto owner = std::upper_bound(graphOffsets.begin(), graphOffsets.end(), edge.first) -
                       graphOffsets.begin() - 1;
    assert(edge.first < edge.second && edge.second < graphOffsets[owner + 1]);
    edgesOfGraph[static_cast<std::size_t>(owner)].push_back(edge);
  }

  double total = 0;
  for (std::size_t graph = 0; graph + 1 < graphOffsets.size(); ++graph) {
    const int offset = graphOffsets[graph];
    const int nodes = graphOffsets[graph + 1] - offset;
    if (nodes == 0)
      continue;
    const auto block = embeddings.middleRows(offset, nodes);
    const Eigen::MatrixXd blockZ = block.cast<double>();
    const Eigen::MatrixXd logits = blockZ * blockZ.transpose();
    Eigen::MatrixXd labels = Eigen::MatrixXd::Identity(nodes, nodes);
    for (const auto& [from, to] : edgesOfGraph[graph]) {
      labels(from - offset, to - offset) = 1;
      labels(to - offset, from - offset) = 1;
    }
    // d/dx of the pair loss: pos_weight · y · (σ(x) − 1) + (1 − y) · σ(x).
    Eigen::MatrixXd logitGradient(nodes, nodes);
    for (int i = 0; i < nodes; ++i) {
      for (int j = 0; j < nodes; ++j) {
        const double x = logits(i, j);
        if (labels(i, j) > 0) {
          total += result.positiveWeight * softplus(-x);
          logitGradient(i, j) = scale * result.positiveWeight * (sigmoid(x) - 1.0);
        } else {
          total += softplus(x);
          logitGradient(i, j) = scale * sigmoid(x);
        }
      }
    }
    // logits = Z_g Z_gᵀ, so dZ_g = (G + Gᵀ) Z_g.
    result.gradient.middleRows(offset, nodes) =
        ((logitGradient + logitGradient.transpose()) * blockZ).cast<float>();
  }
  result.value = scale * total;
  return result;
}

FeatureLossValue featureReconstructionLoss(const nn::Matrix& reconstruction,
                                           const nn::Matrix& target) {
  assert(reconstruction.rows() == target.rows() && reconstruction.cols() == target.cols());
  FeatureLossValue result;
  const Eigen::Index entries = reconstruction.size();
  if (entries == 0) {
    result.gradient = nn::Matrix::Zero(reconstruction.rows(), reconstruction.cols());
    return result;
  }
  const nn::Matrix difference = reconstruction - target;
  result.value = difference.cast<double>().squaredNorm() / static_cast<double>(entries);
  result.gradient = difference * (2.0f / static_cast<float>(entries));
  return result;
}

} // namespace clustune::gae
