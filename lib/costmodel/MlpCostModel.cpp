#include "costmodel/MlpCostModel.h"

#include "support/Random.h"

#include <cassert>
#include <utility>

namespace clustune::costmodel {
namespace {

std::vector<nn::Dense> makeEncoder(const MlpArchitecture& architecture, Rng& rng) {
  std::vector<nn::Dense> layers;
  layers.emplace_back("encoder.0", architecture.features, architecture.hidden, rng);
  layers.emplace_back("encoder.1", architecture.hidden, architecture.hidden, rng);
  return layers;
}

std::vector<nn::ResidualBlock> makeResidualBlocks(const MlpArchitecture& architecture, Rng& rng) {
  std::vector<nn::ResidualBlock> blocks;
  for (int block = 0; block < architecture.residualBlocks; ++block)
    blocks.emplace_back("residual." + std::to_string(block), architecture.hidden, rng);
  return blocks;
}

} // namespace

MlpCostModel::MlpCostModel(MlpArchitecture architecture, std::uint64_t seed)
    : MlpCostModel(architecture, Rng(seed)) {}

// Members are initialised in declaration order, so every layer draws its initial weights from
// the one stream in the order encoder, residual blocks, head.
MlpCostModel::MlpCostModel(MlpArchitecture architecture, Rng&& rng)
    : architecture_(architecture), featureScale_(nn::Matrix::Ones(1, architecture.features)),
      encoder_(makeEncoder(architecture, rng)), encoderActivations_(encoder_.size()),
      residual_(makeResidualBlocks(architecture, rng)), head_("head", architecture.hidden, 1, rng) {
  assert(architecture.features > 0 && architecture.hidden > 0 && architecture.residualBlocks >= 0);
}

void MlpCostModel::fitFeatureScale(const nn::Matrix& statements) {
  assert(statements.cols() == architecture_.features);
  featureScale_ = nn::Matrix::Ones(1, architecture_.features);
  if (statements.rows() == 0)
    return;
  const nn::Matrix maxima = statements.cwiseAbs().colwise().maxCoeff();
  for (Eigen::Index column = 0; column < maxima.cols(); ++column)
    if (maxima(0, column) > 0)
      featureScale_(0, column) = 1.0f / maxima(0, column);
}

void MlpCostModel::setFeatureScale(nn::Matrix scale) {
  assert(scale.rows() == 1 && scale.cols() == architecture_.features);
  featureScale_ = std::move(scale);
}

nn::Matrix MlpCostModel::normalise(const nn::Matrix& statements) const {
  assert(statements.cols() == architecture_.features);
  nn::Matrix scaled = statements;
  scaled.array().rowwise() *= featureScale_.row(0).array();
  return scaled;
}

nn::Vector MlpCostModel::forward(const nn::Matrix& statements, std::span<const int> offsets) {
  nn::Matrix activations = normalise(statements);
  for (std::size_t layer = 0; layer < encoder_.size(); ++layer)
    activations =
        encoderActivations_[layer].forward(encoder_[layer].forward(std::move(activations)));
  activations = segmentSum_.forward(activations, offsets);
  for (nn::ResidualBlock& block : residual_)
    activations = block.forward(activations);
  return head_.forward(activations).col(0);
}

void MlpCostModel::backward(const nn::Vector& scoreGradient) {
  nn::Matrix gradient = scoreGradient;
  gradient = head_.backward(gradient);
  for (auto block = residual_.rbegin(); block != residual_.rend(); ++block)
    gradient = block->backward(gradient);
  gradient = segmentSum_.backward(gradient);
  for (std::size_t layer = encoder_.size(); layer-- > 1;)
    gradient = encoder_[layer].backward(encoderActivations_[layer].backward(gradient));
  encoder_[0].accumulateGradients(encoderActivations_[0].backward(gradient));
}

nn::Vector MlpCostModel::predict(const nn::Matrix& statements, std::span<const int> offsets) const {
  nn::Matrix activations = normalise(statements);
  for (const nn::Dense& layer : encoder_)
    activations = nn::Relu::infer(layer.infer(activations));
  activations = nn::SegmentSum::infer(activations, offsets);
  for (const nn::ResidualBlock& block : residual_)
    activations = block.infer(activations);
  return head_.infer(activations).col(0);
}

std::vector<nn::Parameter*> MlpCostModel::parameters() {
  std::vector<nn::Parameter*> result;
  for (nn::Dense& layer : encoder_)
    for (nn::Parameter* parameter : layer.parameters())
      result.push_back(parameter);
  for (nn::ResidualBlock& block : residual_)
    for (nn::Parameter* parameter : block.parameters())
      result.push_back(parameter);
  for (nn::Parameter* parameter : head_.parameters())
    result.push_back(parameter);
  return result;
}

std::vector<const nn::Parameter*> MlpCostModel::parameters() const {
  std::vector<const nn::Parameter*> result;
  for (nn::Parameter* parameter : const_cast<MlpCostModel*>(this)->parameters())
    result.push_back(parameter);
  return result;
}

} // namespace clustune::costmodel
