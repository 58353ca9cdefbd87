// Helpers shared by the operator lowerings (te/topi/*.cpp): attribute access whose errors name
// the op, operand checks, numpy broadcasting, row-major index arithmetic and copy stages. Every
// operator family uses these, so keep this interface small and stable.
#pragma once

#include "te/topi/Operator.h"

#include <optional>
#include <string>
#include <vector>

namespace clustune::te::topi {

// Attributes. Absent with a fallback gives the fallback; absent without one, or present with
// the wrong type, fails naming the op and the attribute. Attributes are already normalised
// (docs/formats.md): defaults explicit, axes non-negative.
bool hasAttribute(const OperatorContext& context, const std::string& name);
std::int64_t intAttribute(const OperatorContext& context, const std::string& name,
                          std::optional<std::int64_t> fallback = std::nullopt);
// Accepts an integer too (a hand-written "alpha": 1).
double floatAttribute(const OperatorContext& context, const std::string& name,
                      std::optional<double> fallback = std::nullopt);
std::vector<std::int64_t>
intsAttribute(const OperatorContext& context, const std::string& name,
              std::optional<std::vector<std::int64_t>> fallback = std::nullopt);
std::string stringAttribute(const OperatorContext& context, const std::string& name,
                            std::optional<std::string> fallback = std::nullopt);

// The block of a node's `layout` attribute (graph::layoutAttributeBlock): 0 without one, and a
// failure unless it is NCHW<x>c.
std::int64_t layoutAttributeBlock(const OperatorContext& context);

// A list attribute with exactly `size` entries (one per spatial axis, or two for pads).
std::vector<std::int64_t> intsOfSize(const OperatorContext& context, const std::string& name,
                                     std::size_t size);

// Reduction axes over a window or kernel. An axis of extent 1 contributes nothing but an empty
// loop that the search would still split and annotate, so it becomes the constant 0.
class ReductionAxes {
public:
  Expr add(const std::string& name, std::int64_t extent);
  // The reduction of `source` over the axes; without axes, `source` itself (a 1x1 window).
  Expr combine(Reducer reducer, Expr source) const;

private:
  std::vector<IterVar> axes_;
};

// A copy of `data` (N, C, spatial..., then `trailingAxes` axes copied as they are, such as the
// channels of a block in NCHW[x]c) where input element i of each spatial axis sits at position
// i * spread + offset, inside new spatial `extents`; every other position is `fill`. Spread 1
// gives padding (negative offsets crop); spread s the zero-dilated input of a transposed
// convolution. Returns `data` itself when the copy would be the identity.
Tensor spreadAndPad(const std::string& name, const Tensor& data, const Expr& fill,
                    const std::vector<std::int64_t>& spread,
                    const std::vector<std::int64_t>& offset,
                    const std::vector<std::int64_t>& extents, std::size_t trailingAxes = 0);

// Requires between `required` and `maximum` operand slots, the first `required` present, and
// between 1 and `maximumOutputs` outputs recorded by the task.
void requireOperands(const OperatorContext& context, std::size_t required, std::size_t maximum);
void requireOutputs(const OperatorContext& context, std::size_t maximumOutputs);

const Shape& outputShape(const OperatorContext& context, std::size_t output = 0);
DataType outputType(const OperatorContext& context, std::size_t output = 0);

// An immediate of `dtype`: a FloatImm for floating-point dtypes, else an IntImm.
Expr typedConstant(double value, DataType dtype);

// The value of operand `index` when it is a single-element constant whose data the task
// carries (a Pow exponent, GELU's 0.5): inlining it keeps generated code from depending on
// what a measurement feeds that input.
std::optional<double> constantOperandValue(const OperatorContext& context, std::size_t index);

// numpy multidirectional broadcasting: fails unless every dimension of `operandShape`
// (right-aligned) equals the output's or is 1.
void requireBroadcastable(const OperatorContext& context, const Shape& operandShape,
                          const Shape& outputShape);
// The operand indices that output position `outputIndices` reads under broadcasting.
std::vector<Expr> broadcastIndices(const Shape& operandShape,
                                   const std::vector<Expr>& outputIndices);
// Operand `index` at output position `outputIndices`, broadcast (checked against the first
// output's shape), or its constant value inlined (see constantOperandValue).
Expr broadcastOperand(const OperatorContext& context, std::size_t index,
                      const std::vector<Expr>& outputIndices);

// Row-major flat offset of `indices` in `shape`, and back.
Expr flattenIndex(const std::vector<Expr>& indices, const Shape& shape);
std::vector<Expr> unflattenIndex(const Expr& flatIndex, const Shape& shape);

// A stage named `name` with `source`'s shape that copies it: a node's output must be a stage
// of its own even when it computes nothing (Identity, a no-op reduction).
Tensor copyStage(const std::string& name, const Tensor& source);

} // namespace clustune::te::topi
