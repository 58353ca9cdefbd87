// Kipf & Welling's graph convolution (their GraphConvolution layer, no bias): H' = Â·H·W. Each
// node mixes its own and its neighbours' rows of H, weighted by the normalised adjacency, and
// the result goes through a shared linear map. The layer keeps Â·H and Â from its last forward()
// so that backward() needs only the output gradient.
#pragma once

#include "gae/AdjacencyMatrix.h"
#include "nn/Parameter.h"
#include "support/Random.h"

#include <string>
#include <vector>

namespace clustune::gae {

class GcnLayer {
public:
  // Glorot (Xavier) uniform initialisation as in Kipf's code: W uniform in [-limit, limit],
  // limit = sqrt(6 / (inputs + outputs)), drawn row-major from `rng`.
  GcnLayer(std::string name, int inputs, int outputs, Rng& rng);

  // (N × inputs) → (N × outputs) for an N × N adjacency; keeps Â·H and Â for backward().
  nn::Matrix forward(const AdjacencyMatrix& adjacency, const nn::Matrix& input);
  // Adds (Â·H)ᵀ·G to the weight gradient and returns Âᵀ·G·Wᵀ, the gradient with respect to the
  // last forward() input.
  nn::Matrix backward(const nn::Matrix& outputGradient);
  // forward() without the cache.
  nn::Matrix infer(const AdjacencyMatrix& adjacency, const nn::Matrix& input) const;

  nn::Parameter& weight() { return weight_; }
  const nn::Parameter& weight() const { return weight_; }
  int inputs() const { return static_cast<int>(weight_.value.rows()); }
  int outputs() const { return static_cast<int>(weight_.value.cols()); }
  std::vector<nn::Parameter*> parameters() { return {&weight_}; }

private:
  nn::Parameter weight_;      // inputs × outputs
  nn::Matrix lastAggregated_; // Â·H of the last forward()
  AdjacencyMatrix lastAdjacency_;
};

} // namespace clustune::gae
