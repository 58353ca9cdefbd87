// Tenset's residual block (its MLP cost model stacks them after the input projection):
// y = ReLU(Dense(x)) + x, square so that the skip connection needs no projection. The skip path
// lets gradients reach early layers unchanged, which is why deep cost-model MLPs train at all.
#pragma once

#include "nn/Dense.h"
#include "nn/Relu.h"

#include <string>
#include <vector>

namespace clustune::nn {

class ResidualBlock {
public:
  // A width × width Dense layer named `name` (so its parameters are <name>.weight/.bias).
  ResidualBlock(std::string name, int width, Rng& rng);

  Matrix forward(const Matrix& input);
  // The gradient through the Dense/ReLU branch plus the identity gradient of the skip path.
  Matrix backward(const Matrix& outputGradient);
  Matrix infer(const Matrix& input) const;

  std::vector<Parameter*> parameters() { return dense_.parameters(); }
  Dense& dense() { return dense_; }
  const Dense& dense() const { return dense_; }
  int width() const { return dense_.inputs(); }

private:
  Dense dense_;
  Relu relu_;
};

} // namespace clustune::nn
