// The rectifier between Dense layers. It keeps the sign pattern of its last input so that
// backward() can mask the gradient; infer() is the stateless path for concurrent predictions.
#pragma once

#include "nn/Parameter.h"

namespace clustune::nn {

class Relu {
public:
  // max(x, 0) elementwise; keeps which entries were positive for backward().
  Matrix forward(const Matrix& input);
  // The output gradient where the last input was positive, 0 where it was <= 0.
  Matrix backward(const Matrix& outputGradient);
  static Matrix infer(const Matrix& input);

private:
  Matrix lastInput_;
};

} // namespace clustune::nn
