// Lowerings of the element-wise operators (ElemWise and Broadcast pattern kinds): one stage per
// node whose body computes one output element from the operands at the same (broadcast)
// position. Unary activations and math functions (trigonometric and hyperbolic among them),
// numpy-broadcasting binary and variadic operators (PRelu, Mod, Sum and Mean among them), Where,
// Cast, Identity/Dropout and inference-form BatchNormalization.
#include "te/topi/Common.h"

#include <cmath>
#include <limits>
#include <numbers>

namespace clustune::te::topi {
namespace {

using Operands = std::vector<Expr>;

// ONNX's Selu defaults, the float32 values of the self-normalising constants.
constexpr double kSeluAlpha = 1.67326319217681884765625;
constexpr double kSeluGamma = 1.05070102214813232421875;

// A one-operand operator: `body` maps the operand's element to the output element.
using UnaryBody = std::function<Expr(const OperatorContext& context, const Expr& x)>;

OperatorLowering unaryOperator(UnaryBody body) {
  return [body = std::move(body)](const OperatorContext& context) {
    requireOperands(context, 1, 1);
    requireOutputs(context, 1);
    const Tensor& x = context.operand(0);
    return std::vector<Tensor>{
        compute(context.stageName, x->shape,
                [&](const std::vector<Expr>& indices) { return body(context, load(x, indices)); })};
  };
}

OperatorLowering floatUnaryOperator(UnaryBody body) {
  return unaryOperator([body = std::move(body)](const OperatorContext& context, const Expr& x) {
    if (!graph::isFloatingPoint(x->dtype))
      context.fail(std::string("needs a floating-point operand, not ") +
                   graph::dataTypeName(x->dtype));
    return body(context, x);
  });
}

OperatorLowering callOperator(CallFunction function) {
  return floatUnaryOperator(
      [function](const OperatorContext&, const Expr& x) { return call(function, {x}); });
}

// An operator over broadcast operands; operands from `firstSameType` on must share a dtype (Where
// has a bool condition first; Pow allows any exponent type).
using BroadcastBody = std::function<Expr(const Operands& values)>;

OperatorLowering broadcastOperator(std::size_t minimumOperands, std::size_t maximumOperands,
                                   std::size_t firstSameType, BroadcastBody body) {
  return [=](const OperatorContext& context) {
    requireOperands(context, minimumOperands, maximumOperands);
    requireOutputs(context, 1);
    for (std::size_t index = firstSameType + 1; index < context.operands.size(); ++index)
      if (context.operand(index)->dtype != context.operand(firstSameType)->dtype)
        context.fail(std::string("operands must have one dtype, given ") +
                     graph::dataTypeName(context.operand(firstSameType)->dtype) + " and " +
                     graph::dataTypeName(context.operand(index)->dtype));
    return std::vector<Tensor>{
        compute(context.stageName, outputShape(context), [&](const std::vector<Expr>& indices) {
          Operands values;
          for (std::size_t index = 0; index < context.operands.size(); ++index)
            values.push_back(broadcastOperand(context, index, indices));
          return body(values);
        })};
  };
}

OperatorLowering binaryOperator(std::function<Expr(Expr, Expr)> combine) {
  return broadcastOperator(2, 2, 0, [combine = std::move(combine)](const Operands& values) {
    return combine(values[0], values[1]);
  });
}

OperatorLowering variadicOperator(std::function<Expr(Expr, Expr)> combine) {
  return broadcastOperator(1, 64, 0, [combine = std::move(combine)](const Operands& values) {
    Expr result = values[0];
    for (std::size_t index = 1; index < values.size(); ++index)
      result = combine(result, values[index]);
    return result;
  });
}

OperatorLowering logicalOperator(std::function<Expr(Expr, Expr)> combine) {
  const OperatorLowering lowering = binaryOperator(std::move(combine));
  return [lowering](const OperatorContext& context) {
    for (const Tensor& operand : context.operands)
      if (operand && operand->dtype != DataType::Bool)
        context.fail("needs bool operands");
    return lowering(context);
  };
}

// ONNX defines Mean over floating-point types only; an integer mean would need a rounding rule.
std::vector<Tensor> lowerMean(const OperatorContext& context) {
  for (const Tensor& operand : context.operands)
    if (operand && !graph::isFloatingPoint(operand->dtype))
      context.fail("needs floating-point operands");
  return broadcastOperator(1, 64, 0, [](const Operands& values) {
    Expr sum = values[0];
    for (std::size_t index = 1; index < values.size(); ++index)
      sum = sum + values[index];
    return sum / typedConstant(static_cast<double>(values.size()), sum->dtype);
  })(context);
}

// Mod: with fmod=0 (integers only) the remainder takes the divisor's sign, as Python's %; with
// fmod=1 it takes the dividend's, as C's fmod (the truncating division's remainder).
std::vector<Tensor> lowerMod(const OperatorContext& context) {
  requireOperands(context, 2, 2);
  const bool truncating = intAttribute(context, "fmod", 0) != 0;
  if (graph::isFloatingPoint(context.operand(0)->dtype) && !truncating)
    context.fail("fmod=0 on floating-point operands is undefined in ONNX (needs fmod=1)");
  return binaryOperator([truncating](Expr a, Expr b) {
    if (graph::isFloatingPoint(a->dtype))
      return call(CallFunction::Fmod, {a, b});
    if (!truncating)
      return floorMod(a, b);
    return a - (a / b) * b; // integer Div truncates
  })(context);
}

// CastLike: Cast to the second operand's dtype (the task records it as the output's).
std::vector<Tensor> lowerCastLike(const OperatorContext& context) {
  requireOperands(context, 2, 2);
  requireOutputs(context, 1);
  const DataType target = outputType(context);
  if (context.operand(1)->dtype != target)
    context.fail(std::string("target_type is ") + graph::dataTypeName(context.operand(1)->dtype) +
                 " but the task records " + graph::dataTypeName(target));
  const Tensor& x = context.operand(0);
  return {compute(context.stageName, x->shape, [&](const std::vector<Expr>& indices) {
    return cast(target, load(x, indices));
  })};
}

Expr constantLike(double value, const Expr& like) {
  return typedConstant(value, like->dtype);
}

// max(0, min(1, alpha * x + beta)), shared by HardSigmoid and HardSwish.
Expr hardSigmoid(const Expr& x, double alpha, double beta) {
  return maximum(constantLike(0, x),
                 minimum(constantLike(1, x), constantLike(alpha, x) * x + constantLike(beta, x)));
}

Expr gelu(const OperatorContext& context, const Expr& x) {
  const std::string approximation = stringAttribute(context, "approximate", "none");
  const Expr half = constantLike(0.5, x), one = constantLike(1, x);
  if (approximation == "none")
    return half * x *
           (one + call(CallFunction::Erf, {x * constantLike(1 / std::numbers::sqrt2, x)}));
  if (approximation == "tanh") {
    const double scale = std::sqrt(2 / std::numbers::pi);
    const Expr inner = constantLike(scale, x) * (x + constantLike(0.044715, x) * x * x * x);
    return half * x * (one + call(CallFunction::Tanh, {inner}));
  }
  context.fail("unknown approximate='" + approximation + "'");
}

std::vector<Tensor> lowerCast(const OperatorContext& context) {
  requireOperands(context, 1, 1);
  requireOutputs(context, 1);
  const DataType target = outputType(context);
  if (hasAttribute(context, "to")) {
    const std::int64_t code = intAttribute(context, "to");
    // clustune stores float16 tensors but does not compute in them.
    const std::optional<DataType> named = graph::dataTypeFromOnnxCode(code);
    if (!named || *named == DataType::Float16)
      context.fail("unsupported target type " + std::to_string(code));
    if (*named != target)
      context.fail(std::string("to=") + graph::dataTypeName(*named) + " but the task records " +
                   graph::dataTypeName(target));
  }
  const Tensor& x = context.operand(0);
  return {compute(context.stageName, x->shape, [&](const std::vector<Expr>& indices) {
    return cast(target, load(x, indices));
  })};
}

// Identity, and Dropout at inference: a copy; Dropout's optional mask is all true.
std::vector<Tensor> lowerPassThrough(const OperatorContext& context) {
  requireOperands(context, 1, context.node.op == "Dropout" ? 3 : 1);
  requireOutputs(context, context.node.op == "Dropout" ? 2 : 1);
  const Tensor& x = context.operand(0);
  std::vector<Tensor> outputs{copyStage(context.stageName, x)};
  if (context.node.outputShapes.size() == 2)
    outputs.push_back(compute(context.stageName + ".mask", x->shape,
                              [](const std::vector<Expr>&) { return intImm(1, DataType::Bool); }));
  return outputs;
}

std::vector<Tensor> lowerBatchNormalization(const OperatorContext& context) {
  requireOperands(context, 5, 5);
  if (context.node.outputShapes.size() != 1)
    context.fail("only the inference form (one output) is supported");
  const Tensor& x = context.operand(0);
  // In the blocked layout x is [N, C/b, spatial..., b] and channel c is lane c mod b of block c /
  // b.
  const std::int64_t block = layoutAttributeBlock(context);
  if (x->shape.size() < (block != 0 ? 3u : 2u) || (block != 0 && x->shape.back() != block))
    context.fail("needs an input of rank 2 or more" +
                 std::string(block != 0 ? " ending in its block of channels" : "") + ", given " +
                 graph::shapeToString(x->shape));
  const std::int64_t channels = x->shape[1] * (block != 0 ? block : 1);
  for (std::size_t index = 1; index < 5; ++index) {
    const Tensor& parameter = context.operand(index);
    if (parameter->shape != Shape{channels} || parameter->dtype != x->dtype)
      context.fail("operand " + std::to_string(index) + " must be " +
                   graph::dataTypeName(x->dtype) + "[" + std::to_string(channels) + "], given " +
                   graph::dataTypeName(parameter->dtype) + "[" +
                   graph::shapeToString(parameter->shape) + "]");
  }
  const double epsilon = floatAttribute(context, "epsilon", 1e-5);
  return {compute(context.stageName, x->shape, [&](const std::vector<Expr>& indices) {
    auto channel = [&](std::size_t operand) {
      const Expr index = block != 0 ? indices[1] * intImm(block) + indices.back() : indices[1];
      return load(context.operand(operand), {index});
    };
    const Expr scale = channel(1), bias = channel(2), mean = channel(3), variance = channel(4);
    const Expr epsilonValue = typedConstant(epsilon, x->dtype);
    return (load(x, indices) - mean) / call(CallFunction::Sqrt, {variance + epsilonValue}) * scale +
           bias;
  })};
}

} // namespace

void registerElementwiseOperators(OperatorRegistry& registry) {
  registry["Relu"] = unaryOperator(
      [](const OperatorContext&, const Expr& x) { return maximum(x, constantLike(0, x)); });
  registry["Clip"] = unaryOperator([](const OperatorContext& context, const Expr& x) {
    Expr result = x;
    if (hasAttribute(context, "min"))
      result = maximum(result, constantLike(floatAttribute(context, "min"), x));
    if (hasAttribute(context, "max"))
      result = minimum(result, constantLike(floatAttribute(context, "max"), x));
    return result;
  });
  registry["Sigmoid"] = callOperator(CallFunction::Sigmoid);
  registry["Tanh"] = callOperator(CallFunction::Tanh);
  registry["Erf"] = callOperator(CallFunction::Erf);
  registry["Exp"] = callOperator(CallFunction::Exp);
  registry["Log"] = callOperator(CallFunction::Log);
  registry["Sqrt"] = callOperator(CallFunction::Sqrt);
  registry["Floor"] = callOperator(CallFunction::Floor);
  registry["Ceil"] = callOperator(CallFunction::Ceil);
  registry["Round"] = callOperator(CallFunction::Round);
  registry["Sin"] = callOperator(CallFunction::Sin);
  registry["Cos"] = callOperator(CallFunction::Cos);
  registry["Tan"] = callOperator(CallFunction::Tan);
  registry["Asin"] = callOperator(CallFunction::Asin);
  registry["Acos"] = callOperator(CallFunction::Acos);
  registry["Atan"] = callOperator(CallFunction::Atan);
  registry["Sinh"] = callOperator(CallFunction::Sinh);
  registry["Cosh"] = callOperator(CallFunction::Cosh);
  registry["Asinh"] = callOperator(CallFunction::Asinh);
  registry["Acosh"] = callOperator(CallFunction::Acosh);
  registry["Atanh"] = callOperator(CallFunction::Atanh);
  registry["Mod"] = lowerMod;
  registry["CastLike"] = lowerCastLike;
  registry["IsNaN"] = floatUnaryOperator([](const OperatorContext&, const Expr& x) {
    return x != x; // true only for NaN
  });
  registry["IsInf"] = floatUnaryOperator([](const OperatorContext& context, const Expr& x) {
    const Expr infinity = constantLike(std::numeric_limits<double>::infinity(), x);
    Expr result = x != x && x == x; // false: neither sign detected
    if (intAttribute(context, "detect_positive", 1) != 0)
      result = result || x == infinity;
    if (intAttribute(context, "detect_negative", 1) != 0)
      result = result || x == constantLike(-std::numeric_limits<double>::infinity(), x);
    return result;
  });
  registry["Neg"] = unaryOperator(
      [](const OperatorContext&, const Expr& x) { return call(CallFunction::Neg, {x}); });
  registry["Abs"] = unaryOperator(
      [](const OperatorContext&, const Expr& x) { return call(CallFunction::Abs, {x}); });
  registry["Reciprocal"] = floatUnaryOperator(
      [](const OperatorContext&, const Expr& x) { return constantLike(1, x) / x; });
  registry["Sign"] = unaryOperator([](const OperatorContext&, const Expr& x) {
    const Expr zero = constantLike(0, x);
    return select(x > zero, constantLike(1, x), select(x < zero, constantLike(-1, x), zero));
  });
  registry["Not"] = unaryOperator([](const OperatorContext& context, const Expr& x) {
    if (x->dtype != DataType::Bool)
      context.fail("needs a bool operand");
    return logicalNot(x);
  });
  registry["HardSigmoid"] = floatUnaryOperator([](const OperatorContext& context, const Expr& x) {
    return hardSigmoid(x, floatAttribute(context, "alpha", 0.2),
                       floatAttribute(context, "beta", 0.5));
  });
  registry["HardSwish"] = floatUnaryOperator(
      [](const OperatorContext&, const Expr& x) { return x * hardSigmoid(x, 1.0 / 6, 0.5); });
  registry["LeakyRelu"] = floatUnaryOperator([](const OperatorContext& context, const Expr& x) {
    const Expr alpha = constantLike(floatAttribute(context, "alpha", 0.01), x);
    return select(x < constantLike(0, x), alpha * x, x);
  });
  registry["Elu"] = floatUnaryOperator([](const OperatorContext& context, const Expr& x) {
    const Expr alpha = constantLike(floatAttribute(context, "alpha", 1.0), x);
    return select(x < constantLike(0, x),
                  alpha * (call(CallFunction::Exp, {x}) - constantLike(1, x)), x);
  });
  registry["Selu"] = floatUnaryOperator([](const OperatorContext& context, const Expr& x) {
    const Expr alpha = constantLike(floatAttribute(context, "alpha", kSeluAlpha), x);
    const Expr gamma = constantLike(floatAttribute(context, "gamma", kSeluGamma), x);
    return gamma * select(x > constantLike(0, x), x, alpha * call(CallFunction::Exp, {x}) - alpha);
  });
  registry["Celu"] = floatUnaryOperator([](const OperatorContext& context, const Expr& x) {
    const double alpha = floatAttribute(context, "alpha", 1.0);
    const Expr zero = constantLike(0, x);
    const Expr negativePart =
        constantLike(alpha, x) *
        (call(CallFunction::Exp, {x / constantLike(alpha, x)}) - constantLike(1, x));
    return maximum(x, zero) + minimum(negativePart, zero);
  });
  registry["ThresholdedRelu"] =
      floatUnaryOperator([](const OperatorContext& context, const Expr& x) {
        const Expr alpha = constantLike(floatAttribute(context, "alpha", 1.0), x);
        return select(x > alpha, x, constantLike(0, x));
      });
  registry["Softsign"] = floatUnaryOperator([](const OperatorContext&, const Expr& x) {
    return x / (constantLike(1, x) + call(CallFunction::Abs, {x}));
  });
  // ONNX allows integer Shrink too, but leaves open how the float lambd and bias apply to it.
  registry["Shrink"] = floatUnaryOperator([](const OperatorContext& context, const Expr& x) {
    const double lambd = floatAttribute(context, "lambd", 0.5);
    const Expr bias = constantLike(floatAttribute(context, "bias", 0.0), x);
    return select(x < constantLike(-lambd, x), x + bias,
                  select(x > constantLike(lambd, x), x - bias, constantLike(0, x)));
  });
  registry["Gelu"] = floatUnaryOperator(gelu);
  // log(1 + exp(x)) written as max(x, 0) + log(1 + exp(-|x|)), which cannot overflow.
  registry["Softplus"] = floatUnaryOperator([](const OperatorContext&, const Expr& x) {
    const Expr negativeMagnitude = call(CallFunction::Neg, {call(CallFunction::Abs, {x})});
    return maximum(x, constantLike(0, x)) +
           call(CallFunction::Log,
                {constantLike(1, x) + call(CallFunction::Exp, {negativeMagnitude})});
  });
  registry["Cast"] = lowerCast;
  registry["Identity"] = lowerPassThrough;
  registry["Dropout"] = lowerPassThrough;
  registry["BatchNormalization"] = lowerBatchNormalization;

  registry["Add"] = binaryOperator([](Expr a, Expr b) { return a + b; });
  registry["Sub"] = binaryOperator([](Expr a, Expr b) { return a - b; });
  registry["Mul"] = binaryOperator([](Expr a, Expr b) { return a * b; });
  registry["Div"] = binaryOperator([](Expr a, Expr b) { return a / b; });
  registry["Equal"] = binaryOperator([](Expr a, Expr b) { return a == b; });
  registry["Less"] = binaryOperator([](Expr a, Expr b) { return a < b; });
  registry["Greater"] = binaryOperator([](Expr a, Expr b) { return a > b; });
  registry["LessOrEqual"] = binaryOperator([](Expr a, Expr b) { return a <= b; });
  registry["GreaterOrEqual"] = binaryOperator([](Expr a, Expr b) { return a >= b; });
  registry["And"] = logicalOperator([](Expr a, Expr b) { return a && b; });
  registry["Or"] = logicalOperator([](Expr a, Expr b) { return a || b; });
  registry["Xor"] = logicalOperator([](Expr a, Expr b) { return a != b; });
  registry["Max"] = variadicOperator([](Expr a, Expr b) { return maximum(a, b); });
  registry["Min"] = variadicOperator([](Expr a, Expr b) { return minimum(a, b); });
  registry["Sum"] = variadicOperator([](Expr a, Expr b) { return a + b; });
  registry["Mean"] = lowerMean;
  // The slope broadcasts to the input (unidirectionally: the output has the input's shape).
  registry["PRelu"] = binaryOperator(
      [](Expr x, Expr slope) { return select(x < constantLike(0, x), slope * x, x); });
  // ONNX lets the exponent have another numeric type than the base; the result is the base's.
  registry["Pow"] = broadcastOperator(2, 2, 1, [](const Operands& values) {
    return call(CallFunction::Pow, {values[0], cast(values[0]->dtype, values[1])});
  });
  registry["Where"] = broadcastOperator(3, 3, 1, [](const Operands& values) {
    return select(cast(DataType::Bool, values[0]), values[1], values[2]);
  });
}

} // namespace clustune::te::topi
