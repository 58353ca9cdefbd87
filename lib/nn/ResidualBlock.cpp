// The block composes Dense and Relu rather than repeating their arithmetic, so the gradient
// checks of those layers also vouch for the branch here; only the skip sum is new.
#include "nn/ResidualBlock.h"

#include <utility>

namespace clustune::nn {

ResidualBlock::ResidualBlock(std::string name, int width, Rng& rng)
    : dense_(std::move(name), width, width, rng) {}

Matrix ResidualBlock::forward(const Matrix& input) {
  return relu_.forward(dense_.forward(input)) + input;
}

Matrix ResidualBlock::backward(const Matrix& outputGradient) {
  return dense_.backward(relu_.backward(outputGradient)) + outputGradient;
}

Matrix ResidualBlock::infer(const Matrix& input) const {
  return Relu::infer(dense_.infer(input)) + input;
}

} // namespace clustune::nn
