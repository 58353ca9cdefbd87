// The rectifier between Dense layers. It keeps its last output, whose positive entries are
// exactly those of the input, so that backward() can mask the gradient; infer() is the stateless
// path for concurrent predictions.
#pragma once

#include "nn/Parameter.h"

namespace clustune::nn {

class Relu {
public:
  // max(x, 0) elementwise; keeps which entries were positive for backward().
  Matrix forward(Matrix input);
  // The output gradient where the last input was positive, 0 where it was <= 0.
  Matrix backward(const Matrix& outputGradient);
  static Matrix infer(const Matrix& input);

private:
  Matrix lastOutput_;
};

} // namespace clustune::nn
