// See OpRegistry.h. The table covers every operator the corpus models and the ONNX backend node
// tests of the supported operator families use; add a row (and a te lowering) to support more.
#include "graph/OpRegistry.h"

#include <algorithm>
#include <array>

namespace clustune::graph {
namespace {

using enum PatternKind;

constexpr std::array kOps = {
    // Complex ops that anchor a task.
    OpInfo{"Conv", OutEWiseFusable},
    OpInfo{"ConvTranspose", OutEWiseFusable},
    OpInfo{"Gemm", OutEWiseFusable},
    OpInfo{"MatMul", OutEWiseFusable},
    // A contraction of any form (matmul-like, batched, transposed, a sum or a diagonal).
    OpInfo{"Einsum", CommReduce},
    // Element-wise (unary, or binary on equal shapes: the importer refines to Broadcast when the
    // input shapes differ).
    OpInfo{"Relu", ElemWise},
    OpInfo{"Clip", ElemWise},
    OpInfo{"Sigmoid", ElemWise},
    OpInfo{"Tanh", ElemWise},
    OpInfo{"Erf", ElemWise},
    OpInfo{"HardSigmoid", ElemWise},
    OpInfo{"HardSwish", ElemWise},
    OpInfo{"LeakyRelu", ElemWise},
    OpInfo{"Elu", ElemWise},
    OpInfo{"Gelu", ElemWise},
    OpInfo{"Selu", ElemWise},
    OpInfo{"Celu", ElemWise},
    OpInfo{"ThresholdedRelu", ElemWise},
    OpInfo{"Softsign", ElemWise},
    OpInfo{"Shrink", ElemWise},
    OpInfo{"Softplus", ElemWise},
    OpInfo{"Exp", ElemWise},
    OpInfo{"Log", ElemWise},
    OpInfo{"Sqrt", ElemWise},
    OpInfo{"Neg", ElemWise},
    OpInfo{"Abs", ElemWise},
    OpInfo{"Reciprocal", ElemWise},
    OpInfo{"Floor", ElemWise},
    OpInfo{"Ceil", ElemWise},
    OpInfo{"Round", ElemWise},
    OpInfo{"Sign", ElemWise},
    OpInfo{"Sin", ElemWise},
    OpInfo{"Cos", ElemWise},
    OpInfo{"Tan", ElemWise},
    OpInfo{"Asin", ElemWise},
    OpInfo{"Acos", ElemWise},
    OpInfo{"Atan", ElemWise},
    OpInfo{"Sinh", ElemWise},
    OpInfo{"Cosh", ElemWise},
    OpInfo{"Asinh", ElemWise},
    OpInfo{"Acosh", ElemWise},
    OpInfo{"Atanh", ElemWise},
    OpInfo{"Not", ElemWise},
    OpInfo{"Cast", ElemWise},
    OpInfo{"Identity", ElemWise},
    OpInfo{"Dropout", ElemWise},
    OpInfo{"Add", ElemWise},
    OpInfo{"Sub", ElemWise},
    OpInfo{"Mul", ElemWise},
    OpInfo{"Div", ElemWise},
    OpInfo{"Pow", ElemWise},
    OpInfo{"Mod", ElemWise},
    OpInfo{"IsNaN", ElemWise},
    OpInfo{"IsInf", ElemWise},
    OpInfo{"CastLike", ElemWise},
    OpInfo{"Max", ElemWise},
    OpInfo{"Min", ElemWise},
    OpInfo{"Equal", ElemWise},
    OpInfo{"Less", ElemWise},
    OpInfo{"Greater", ElemWise},
    OpInfo{"LessOrEqual", ElemWise},
    OpInfo{"GreaterOrEqual", ElemWise},
    OpInfo{"And", ElemWise},
    OpInfo{"Or", ElemWise},
    OpInfo{"Xor", ElemWise},
    OpInfo{"Sum", ElemWise},
    OpInfo{"Mean", ElemWise},
    OpInfo{"PRelu", ElemWise},
    OpInfo{"Where", ElemWise},
    // Per-channel affine when it cannot be folded into a preceding Conv or Gemm.
    OpInfo{"BatchNormalization", Broadcast},
    // Layout and indexing.
    OpInfo{"Reshape", Injective},
    OpInfo{"Flatten", Injective},
    OpInfo{"Transpose", Injective},
    OpInfo{"Concat", Injective},
    OpInfo{"Slice", Injective},
    OpInfo{"Split", Injective},
    OpInfo{"Gather", Injective},
    OpInfo{"Squeeze", Injective},
    OpInfo{"Unsqueeze", Injective},
    OpInfo{"Expand", Injective},
    OpInfo{"Pad", Injective},
    OpInfo{"Tile", Injective},
    OpInfo{"GatherElements", Injective},
    OpInfo{"Trilu", Injective},
    OpInfo{"DepthToSpace", Injective},
    OpInfo{"SpaceToDepth", Injective},
    OpInfo{"OneHot", Injective},
    OpInfo{"Resize", Injective},
    OpInfo{"EyeLike", Injective},
    OpInfo{"GatherND", Injective},
    OpInfo{"ReverseSequence", Injective},
    // Reductions.
    OpInfo{"MaxPool", CommReduce},
    OpInfo{"AveragePool", CommReduce},
    OpInfo{"GlobalAveragePool", CommReduce},
    OpInfo{"GlobalMaxPool", CommReduce},
    OpInfo{"ReduceMean", CommReduce},
    OpInfo{"ReduceSum", CommReduce},
    OpInfo{"ReduceMax", CommReduce},
    OpInfo{"ReduceMin", CommReduce},
    OpInfo{"ReduceL1", CommReduce},
    OpInfo{"ReduceL2", CommReduce},
    OpInfo{"ReduceSumSquare", CommReduce},
    OpInfo{"ReduceLogSum", CommReduce},
    OpInfo{"ReduceLogSumExp", CommReduce},
    OpInfo{"Softmax", CommReduce},
    OpInfo{"LogSoftmax", CommReduce},
    OpInfo{"LayerNormalization", CommReduce},
    OpInfo{"ReduceProd", CommReduce},
    OpInfo{"ArgMax", CommReduce},
    OpInfo{"ArgMin", CommReduce},
    OpInfo{"Hardmax", CommReduce},
    OpInfo{"CumSum", CommReduce},
    OpInfo{"InstanceNormalization", CommReduce},
    OpInfo{"TopK", CommReduce},
    OpInfo{"LRN", CommReduce},
    OpInfo{"MeanVarianceNormalization", CommReduce},
    OpInfo{"ScatterElements", CommReduce},
    OpInfo{"Scatter", CommReduce},
    OpInfo{"ScatterND", CommReduce},
    // Shape arithmetic: always folded away on static shapes, never a task.
    OpInfo{"Shape", Opaque},
    OpInfo{"Constant", Opaque},
    OpInfo{"ConstantOfShape", Opaque},
    OpInfo{"Range", Opaque},
    OpInfo{"Size", Opaque},
    // Internal: the blocked channel layout (graph/BlockedLayout.h).
    OpInfo{"ConvNCHWc", OutEWiseFusable, true},
    OpInfo{"DepthwiseConvNCHWc", OutEWiseFusable, true},
    OpInfo{"LayoutTransform", Injective, true},
};

} // namespace

const char* patternKindName(PatternKind kind) {
  switch (kind) {
  case ElemWise:
    return "ElemWise";
  case Broadcast:
    return "Broadcast";
  case Injective:
    return "Injective";
  case CommReduce:
    return "CommReduce";
  case OutEWiseFusable:
    return "OutEWiseFusable";
  case Opaque:
    return "Opaque";
  }
  return "Opaque";
}

std::optional<OpInfo> lookupOp(const std::string& op) {
  auto found =
      std::find_if(kOps.begin(), kOps.end(), [&](const OpInfo& info) { return op == info.op; });
  if (found == kOps.end())
    return std::nullopt;
  return *found;
}

std::vector<std::string> supportedOps() {
  std::vector<std::string> names;
  for (const auto& info : kOps)
    names.emplace_back(info.op);
  std::sort(names.begin(), names.end());
  return names;
}

} // namespace clustune::graph
