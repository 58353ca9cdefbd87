// Tenset's MLP cost model ("SegmentSumMLP", DESIGN §6, REFERENCES.md): each statement's features,
// divided by their training-set column maximum, go through a 2-layer ReLU encoder; a program is
// the sum of its statements' encodings, refined by residual blocks and a linear head into one
// score (higher = predicted faster). Training code drives forward/backward; tuners and
// clustune-eval call the const, thread-safe predict().
#pragma once

#include "nn/Dense.h"
#include "nn/Relu.h"
#include "nn/ResidualBlock.h"
#include "nn/SegmentSum.h"
#include "support/Random.h"

#include <cstdint>
#include <span>
#include <vector>

namespace clustune::costmodel {

struct MlpArchitecture {
  int features = 0;
  int hidden = 256;
  int residualBlocks = 2;
};

class MlpCostModel {
public:
  MlpCostModel(MlpArchitecture architecture, std::uint64_t seed);

  // Sets the feature scale to 1 / max |x| of each column (1 for a column that is all zero), as
  // Tenset normalises by the training set's column maximum.
  void fitFeatureScale(const nn::Matrix& statements);
  const nn::Matrix& featureScale() const { return featureScale_; } // 1 × features
  void setFeatureScale(nn::Matrix scale);

  // One score per program; programs own the row ranges [offsets[p], offsets[p + 1]).
  nn::Vector forward(const nn::Matrix& statements, std::span<const int> offsets);
  // Adds the parameter gradients of the last forward() for d loss / d score.
  void backward(const nn::Vector& scoreGradient);
  nn::Vector predict(const nn::Matrix& statements, std::span<const int> offsets) const;

  std::vector<nn::Parameter*> parameters();
  std::vector<const nn::Parameter*> parameters() const;
  const MlpArchitecture& architecture() const { return architecture_; }

  // The layers, for serialisation (MlpCostModelFile.h).
  nn::Dense& encoder(int layer) { return encoder_[static_cast<std::size_t>(layer)]; }
  const nn::Dense& encoder(int layer) const { return encoder_[static_cast<std::size_t>(layer)]; }
  nn::ResidualBlock& residual(int block) { return residual_[static_cast<std::size_t>(block)]; }
  const nn::ResidualBlock& residual(int block) const {
    return residual_[static_cast<std::size_t>(block)];
  }
  nn::Dense& head() { return head_; }
  const nn::Dense& head() const { return head_; }

private:
  MlpCostModel(MlpArchitecture architecture, Rng&& rng);
  nn::Matrix normalise(const nn::Matrix& statements) const;

  MlpArchitecture architecture_;
  nn::Matrix featureScale_;
  std::vector<nn::Dense> encoder_;
  std::vector<nn::Relu> encoderActivations_;
  nn::SegmentSum segmentSum_;
  std::vector<nn::ResidualBlock> residual_;
  nn::Dense head_;
};

} // namespace clustune::costmodel
