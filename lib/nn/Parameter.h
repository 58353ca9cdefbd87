// The tensors of the neural-network kit (DESIGN §6): a batch is a row-major float matrix with one
// sample (or one statement) per row, and every trainable tensor is a Parameter that carries its
// gradient beside its value, so that an optimiser can walk a model's parameters without knowing
// its layers. The cost models (lib/costmodel) and the graph autoencoder (lib/gae) share this kit.
#pragma once

#include <Eigen/Core>
#include <string>

namespace clustune::nn {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vector = Eigen::VectorXf;

struct Parameter {
  std::string name;
  Matrix value;
  Matrix gradient; // same shape as value; backward() adds to it, the optimiser clears it

  Parameter() = default;
  Parameter(std::string parameterName, Matrix initialValue)
      : name(std::move(parameterName)), value(std::move(initialValue)),
        gradient(Matrix::Zero(value.rows(), value.cols())) {}
};

} // namespace clustune::nn
