// The optimiser of every model in the kit, matching what Tenset's PyTorch training does per
// batch: clip_grad_norm_ over all gradients, then torch.optim.Adam with L2 weight decay added to
// the gradient. It works on Parameter pointers, so it needs no knowledge of the layers; the
// parameters must outlive it.
#pragma once

#include "nn/Parameter.h"

#include <vector>

namespace clustune::nn {

struct AdamOptions {
  float learningRate = 7e-4f;
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float epsilon = 1e-8f;
  float weightDecay = 1e-6f;
  float gradientClipNorm = 0.5f; // 0 disables clipping
};

class Adam {
public:
  explicit Adam(std::vector<Parameter*> parameters, AdamOptions options = {});

  // 1) If clipping is on and the global L2 norm of all gradients exceeds gradientClipNorm, scale
  // every gradient by gradientClipNorm / (norm + 1e-6); 2) g += weightDecay · value; 3) the
  // bias-corrected Adam update. The gradients are then zeroed. Throws clustune::Error, naming the
  // parameter, if a gradient is not finite (nothing is updated then).
  void step();
  void zeroGradients();

  // The global gradient norm of the last step, before clipping.
  double lastGradientNorm() const { return lastGradientNorm_; }
  int steps() const { return steps_; }
  void setLearningRate(float learningRate) { options_.learningRate = learningRate; }
  const AdamOptions& options() const { return options_; }

private:
  std::vector<Parameter*> parameters_;
  AdamOptions options_;
  std::vector<Matrix> firstMoments_;
  std::vector<Matrix> secondMoments_;
  int steps_ = 0;
  double lastGradientNorm_ = 0;
};

} // namespace clustune::nn
