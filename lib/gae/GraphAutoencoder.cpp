// The backward pass joins the two decoders' gradients at Z (the feature one scaled by
// featureWeight) and runs the encoder backwards once.
#include "gae/GraphAutoencoder.h"

#include "support/Error.h"

#include <cassert>

namespace clustune::gae {
namespace {

// Checked before any layer is built, since the layers assert positive sizes.
GaeArchitecture validated(const GaeArchitecture& architecture) {
  if (architecture.features <= 0 || architecture.hidden <= 0 || architecture.latent <= 0)
    throw Error("graph autoencoder sizes must be positive: features " +
                std::to_string(architecture.features) + ", hidden " +
                std::to_string(architecture.hidden) + ", latent " +
                std::to_string(architecture.latent));
  return architecture;
}

} // namespace

GraphAutoencoder::GraphAutoencoder(GaeArchitecture architecture, std::uint64_t seed,
                                   float featureWeight)
    : architecture_(validated(architecture)), featureWeight_(featureWeight),
      initialisationRng_(seed),
      firstLayer_("encoder.0", architecture_.features, architecture_.hidden, initialisationRng_),
      secondLayer_("encoder.1", architecture_.hidden, architecture_.latent, initialisationRng_),
      featureDecoder_("feature_decoder", architecture_.latent, architecture_.features,
                      initialisationRng_) {}

double GraphAutoencoder::forward(const GraphBatch& batch) {
  assert(batch.features.cols() == architecture_.features);
  const nn::Matrix hidden = relu_.forward(firstLayer_.forward(batch.adjacency, batch.features));
  const nn::Matrix embeddings = secondLayer_.forward(batch.adjacency, hidden);
  StructureLossValue structure = structureLoss(embeddings, batch.graphOffsets, batch.edges);
  FeatureLossValue feature =
      featureReconstructionLoss(featureDecoder_.forward(embeddings), batch.features);
  lastStructureGradient_ = std::move(structure.gradient);
  lastFeatureGradient_ = std::move(feature.gradient);
  lastBatch_ = &batch;
  lastLoss_.structure = structure.value;
  lastLoss_.feature = feature.value;
  lastLoss_.total = structure.value + featureWeight_ * feature.value;
  return lastLoss_.total;
}

void GraphAutoencoder::backward() {
  assert(lastBatch_ != nullptr);
  nn::Matrix embeddingGradient = lastStructureGradient_;
  if (featureWeight_ != 0)
    embeddingGradient += featureDecoder_.backward(lastFeatureGradient_ * featureWeight_);
  const nn::Matrix hiddenGradient = relu_.backward(secondLayer_.backward(embeddingGradient));
  firstLayer_.backward(hiddenGradient);
}

nn::Matrix GraphAutoencoder::embedNodes(const GraphBatch& batch) const {
  if (batch.features.cols() != architecture_.features)
    throw Error("graph batch has " + std::to_string(batch.features.cols()) +
                " features per node, the graph autoencoder expects " +
                std::to_string(architecture_.features));
  const nn::Matrix hidden = nn::Relu::infer(firstLayer_.infer(batch.adjacency, batch.features));
  return secondLayer_.infer(batch.adjacency, hidden);
}

nn::Matrix GraphAutoencoder::reconstructFeatures(const nn::Matrix& nodeEmbeddings) const {
  return featureDecoder_.infer(nodeEmbeddings);
}

nn::Matrix GraphAutoencoder::graphEmbedding(const nn::Matrix& nodeEmbeddings) {
  assert(nodeEmbeddings.rows() > 0);
  const Eigen::Index latent = nodeEmbeddings.cols();
  nn::Matrix result(1, 2 * latent);
  result.leftCols(latent) = nodeEmbeddings.colwise().mean();
  result.rightCols(latent) = nodeEmbeddings.colwise().maxCoeff();
  return result;
}

std::vector<nn::Parameter*> GraphAutoencoder::parameters() {
  return {&firstLayer_.weight(), &secondLayer_.weight(), &featureDecoder_.weight(),
          &featureDecoder_.bias()};
}

std::vector<const nn::Parameter*> GraphAutoencoder::parameters() const {
  return {&firstLayer_.weight(), &secondLayer_.weight(), &featureDecoder_.weight(),
          &featureDecoder_.bias()};
}

nn::Matrix embedTaskGraph(const GraphAutoencoder& model, const FeatureStandardizer& standardizer,
                          const features::TaskGraph& graph) {
  if (graph.nodeCount == 0)
    throw Error("task graph '" + graph.anchor + "' has no nodes to embed");
  const GraphBatch batch = makeGraphBatch({&graph}, standardizer);
  return GraphAutoencoder::graphEmbedding(model.embedNodes(batch));
}

} // namespace clustune::gae
