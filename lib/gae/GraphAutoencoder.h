// The graph autoencoder of DESIGN §6 (Kipf & Welling 2016, the non-variational GAE): a two-layer
// GCN encoder Z = Â·ReLU(Â·X·W1)·W2 over standardised node features, Kipf's inner-product
// structure decoder, and a feature decoder Dense(latent → F) that reconstructs the standardised
// features. A task's embedding is the readout of its node embeddings (mean and max pooling),
// which is what clustering uses; the decoders exist only to train the encoder.
#pragma once

#include "gae/FeatureStandardizer.h"
#include "gae/GaeLoss.h"
#include "gae/GcnLayer.h"
#include "gae/GraphBatch.h"
#include "nn/Dense.h"
#include "nn/Relu.h"

#include <cstdint>
#include <vector>

namespace clustune::gae {

struct GaeArchitecture {
  int features = 0;
  int hidden = 32;
  int latent = 16;
};

struct GaeLossParts {
  double total = 0;     // structure + featureWeight · feature
  double structure = 0; // Kipf's weighted BCE (GaeLoss.h)
  double feature = 0;   // mean squared error of the reconstructed standardised features
};

class GraphAutoencoder {
public:
  // Deterministic for a seed: one Rng(seed) draws W1, then W2 (Glorot), then the feature
  // decoder (nn::Dense's initialisation).
  GraphAutoencoder(GaeArchitecture architecture, std::uint64_t seed = 0, float featureWeight = 1);

  // The total loss of `batch`; keeps what backward() needs. The batch must outlive backward().
  double forward(const GraphBatch& batch);
  // Adds d loss / d parameter of the last forward() to every parameter's gradient.
  void backward();
  // The parts of the last forward()'s loss.
  const GaeLossParts& lastLoss() const { return lastLoss_; }

  // Z (N × latent) for a batch, without touching any cache.
  nn::Matrix embedNodes(const GraphBatch& batch) const;
  // The feature decoder's output for node embeddings Z (N × features).
  nn::Matrix reconstructFeatures(const nn::Matrix& nodeEmbeddings) const;
  // The readout of one graph's node embeddings: [mean over nodes, max over nodes], 1 × 2·latent.
  // The graph must have at least one node.
  static nn::Matrix graphEmbedding(const nn::Matrix& nodeEmbeddings);

  const GaeArchitecture& architecture() const { return architecture_; }
  float featureWeight() const { return featureWeight_; }
  void setFeatureWeight(float weight) { featureWeight_ = weight; }
  GcnLayer& encoder(int layer) { return layer == 0 ? firstLayer_ : secondLayer_; }
  const GcnLayer& encoder(int layer) const { return layer == 0 ? firstLayer_ : secondLayer_; }
  nn::Dense& featureDecoder() { return featureDecoder_; }
  const nn::Dense& featureDecoder() const { return featureDecoder_; }
  // encoder.0.weight, encoder.1.weight, feature_decoder.weight, feature_decoder.bias.
  std::vector<nn::Parameter*> parameters();
  std::vector<const nn::Parameter*> parameters() const;

private:
  GaeArchitecture architecture_;
  float featureWeight_;
  Rng initialisationRng_; // declared before the layers: they draw from it in this order
  GcnLayer firstLayer_;
  nn::Relu relu_;
  GcnLayer secondLayer_;
  nn::Dense featureDecoder_;
  const GraphBatch* lastBatch_ = nullptr;
  nn::Matrix lastStructureGradient_; // d structure loss / d Z
  nn::Matrix lastFeatureGradient_;   // d feature loss / d reconstruction
  GaeLossParts lastLoss_;
};

// The embedding (1 × 2·latent) of one task graph with its full edge set.
nn::Matrix embedTaskGraph(const GraphAutoencoder& model, const FeatureStandardizer& standardizer,
                          const features::TaskGraph& graph);

} // namespace clustune::gae
