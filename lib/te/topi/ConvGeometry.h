// What Conv and ConvTranspose share (te/topi/Convolution.cpp, te/topi/ConvTranspose.cpp): the
// normalised attributes of a convolution, their checks, and the channel-bias stage.
#pragma once

#include "te/topi/Common.h"

#include <cstdint>
#include <vector>

namespace clustune::te::topi {

// The normalised attributes of a convolution, one entry per spatial axis.
struct ConvGeometry {
  std::size_t spatialRank = 0;
  std::vector<std::int64_t> kernel;
  std::vector<std::int64_t> strides;
  std::vector<std::int64_t> dilations;
  std::vector<std::int64_t> padsBegin;
  std::vector<std::int64_t> padsEnd;
  std::vector<std::int64_t> outputPadding; // ConvTranspose only
  std::int64_t group = 1;

  std::int64_t dilatedKernel(std::size_t axis) const {
    return (kernel[axis] - 1) * dilations[axis] + 1;
  }
};

// Checks the operand ranks and reads the attributes that Conv and ConvTranspose share; the pads
// are left to readExplicitPads, since ConvTranspose may derive them from its output shape.
ConvGeometry readGeometry(const OperatorContext& context);
void readExplicitPads(const OperatorContext& context, ConvGeometry& geometry);

// One reduction axis per kernel axis (`<stage>.rk<axis>`), in order.
std::vector<Expr> addKernelAxes(ReductionAxes& axes, const std::string& stageName,
                                const ConvGeometry& geometry);

// Fails unless the task records `computed` as the output shape.
void requireOutputShape(const OperatorContext& context, const Shape& computed);

// Fails unless `bias` is a vector of `channels` elements of `dtype`.
void requireChannelBias(const OperatorContext& context, const Tensor& bias, std::int64_t channels,
                        DataType dtype);

// Adds bias[channel] to every element: a separate stage, since the convolution's body is a
// Reduce and nothing may wrap it. Without a bias operand, `convolution` itself.
Tensor addChannelBias(const OperatorContext& context, const Tensor& convolution,
                      std::int64_t channels);

} // namespace clustune::te::topi
