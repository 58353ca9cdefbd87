// The fully connected layer, the building block of every model in the kit: y = x·W + b with one
// sample per row. Its products go through ParallelProduct so that training uses every core, and
// it keeps the last input so that backward() can form the weight gradient without the caller
// passing it back in. infer() is the const, cache-free path that concurrent predictions use.
#pragma once

#include "nn/Parameter.h"
#include "support/Random.h"

#include <string>
#include <vector>

namespace clustune::nn {

class Dense {
public:
  // PyTorch nn.Linear initialisation: W and b uniform in [-1/sqrt(inputs), 1/sqrt(inputs)],
  // drawn from `rng` (W row-major first, then b), so a seed fixes the layer exactly.
  Dense(std::string name, int inputs, int outputs, Rng& rng);

  // (rows × inputs) → (rows × outputs); keeps `input` for backward().
  Matrix forward(Matrix input);
  // Adds inputᵀ·g to the weight gradient and the column sums of g to the bias gradient, and
  // returns the gradient with respect to the last forward() input, g·Wᵀ.
  Matrix backward(const Matrix& outputGradient);
  // backward() for a first layer: the parameter gradients only, without the input gradient
  // that no one would read (a third of the layer's backward products).
  void accumulateGradients(const Matrix& outputGradient);
  // forward() without the cache: const and safe to call from several threads at once.
  Matrix infer(const Matrix& input) const;

  Parameter& weight() { return weight_; }
  Parameter& bias() { return bias_; }
  const Parameter& weight() const { return weight_; }
  const Parameter& bias() const { return bias_; }
  int inputs() const { return static_cast<int>(weight_.value.rows()); }
  int outputs() const { return static_cast<int>(weight_.value.cols()); }

  std::vector<Parameter*> parameters() { return {&weight_, &bias_}; }

private:
  Parameter weight_; // inputs × outputs
  Parameter bias_;   // 1 × outputs
  Matrix lastInput_;
};

} // namespace clustune::nn
