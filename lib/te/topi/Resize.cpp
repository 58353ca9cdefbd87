// Lowering of Resize (opset 11 and later): nearest, linear and cubic interpolation, with every
// coordinate_transformation_mode of ONNX.
#include "te/topi/Common.h"

#include <set>

namespace clustune::te::topi {
namespace {

// Resize (opset 11 and later), nearest, linear and cubic modes. Simplification records the per-axis
// scales (given, or output / input extents when sizes were given) and, for
// tf_crop_and_resize, the roi. Each output coordinate maps to an input coordinate by ONNX's
// formula for the coordinate_transformation_mode, evaluated in float64 in ONNX's order so that
// nearest rounding sees the same ties; nearest picks one element (nearest_mode), linear and cubic
// blend 2 or 4 neighbours along every resized axis, clamped to the edge.
std::vector<Tensor> lowerResize(const OperatorContext& context) {
  requireOperands(context, 1, 1);
  requireOutputs(context, 1);
  const Tensor& x = context.operand(0);
  const std::size_t rank = x->shape.size();
  const Shape& shape = outputShape(context);
  if (shape.size() != rank)
    context.fail("the output must have the input's rank");
  const std::string mode = stringAttribute(context, "mode", "nearest");
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    context.fail("mode '" + mode + "' is not nearest, linear or cubic");
  if (mode != "nearest" && !graph::isFloatingPoint(x->dtype))
    context.fail(mode + " mode needs a floating-point input");
  const double cubicA = floatAttribute(context, "cubic_coeff_a", -0.75);
  const bool excludeOutside = intAttribute(context, "exclude_outside", 0) != 0;
  const std::string transform =
      stringAttribute(context, "coordinate_transformation_mode", "half_pixel");
  static const std::set<std::string> transforms{"half_pixel",           "pytorch_half_pixel",
                                                "align_corners",        "asymmetric",
                                                "tf_half_pixel_for_nn", "tf_crop_and_resize"};
  if (!transforms.count(transform))
    context.fail("coordinate_transformation_mode '" + transform + "' is not supported");
  const std::string nearestMode = stringAttribute(context, "nearest_mode", "round_prefer_floor");
  if (nearestMode != "round_prefer_floor" && nearestMode != "round_prefer_ceil" &&
      nearestMode != "floor" && nearestMode != "ceil")
    context.fail("nearest_mode '" + nearestMode + "' is not supported");
  const graph::AttributeValue* scalesValue =
      graph::findAttribute(context.node.attributes, "scales");
  const auto* scaleList = scalesValue ? std::get_if<std::vector<double>>(scalesValue) : nullptr;
  if (!scaleList || scaleList->size() != rank)
    context.fail("needs one scale per axis");
  std::vector<double> roi;
  if (transform == "tf_crop_and_resize") {
    const graph::AttributeValue* roiValue = graph::findAttribute(context.node.attributes, "roi");
    const auto* roiList = roiValue ? std::get_if<std::vector<double>>(roiValue) : nullptr;
    if (!roiList || roiList->size() != 2 * rank)
      context.fail("tf_crop_and_resize needs a constant roi of " + std::to_string(2 * rank) +
                   " values");
    roi = *roiList;
  }
  const double extrapolation = floatAttribute(context, "extrapolation_value", 0.0);
  const DataType real = DataType::Float64;
  auto constant = [&](double value) { return floatImm(value, real); };
  // The input coordinate of output index `resized` along `axis`, as ONNX writes it.
  auto original = [&](std::size_t axis, const Expr& resized) -> Expr {
    const double scale = (*scaleList)[axis];
    const auto inExtent = static_cast<double>(x->shape[axis]);
    // ONNX's reference takes the output length as input length times scale, unrounded.
    const double outExtent = scale * inExtent;
    const Expr r = cast(real, resized);
    if (transform == "asymmetric")
      return r / constant(scale);
    if (transform == "half_pixel" || (transform == "pytorch_half_pixel" && outExtent > 1))
      return (r + constant(0.5)) / constant(scale) - constant(0.5);
    if (transform == "pytorch_half_pixel")
      return constant(-0.5);
    if (transform == "align_corners")
      return outExtent == 1 ? constant(0) : r * constant(inExtent - 1) / constant(outExtent - 1);
    if (transform == "tf_half_pixel_for_nn")
      return (r + constant(0.5)) / constant(scale);
    const double start = roi[axis], end = roi[rank + axis]; // tf_crop_and_resize
    if (outExtent > 1)
      return r * constant(end - start) * constant(inExtent - 1) / constant(outExtent - 1) +
             constant(start * (inExtent - 1));
    return constant((end - start) * (inExtent - 1) / 2 + start * (inExtent - 1));
  };
  // Axes whose coordinate is the output index itself need no arithmetic.
  auto identity = [&](std::size_t axis) {
    return x->shape[axis] == shape[axis] && (*scaleList)[axis] == 1.0 &&
           transform != "tf_half_pixel_for_nn" && transform != "tf_crop_and_resize";
  };
  auto clampIndex = [&](const Expr& index, std::size_t axis) {
    return minimum(maximum(index, intImm(0)), intImm(x->shape[axis] - 1));
  };
  return {compute(context.stageName, shape, [&](const std::vector<Expr>& indices) {
    Expr outside; // tf_crop_and_resize: the coordinate leaves the input
    std::vector<Expr> coordinates(rank);
    for (std::size_t axis = 0; axis < rank; ++axis) {
      if (identity(axis))
        continue;
      coordinates[axis] = original(axis, indices[axis]);
      if (transform == "tf_crop_and_resize") {
        const Expr beyond = coordinates[axis] < constant(0) ||
                            coordinates[axis] > constant(static_cast<double>(x->shape[axis] - 1));
        outside = outside ? outside || beyond : beyond;
      }
    }
    Expr value;
    if (mode == "nearest") {
      std::vector<Expr> inputIndices(rank);
      for (std::size_t axis = 0; axis < rank; ++axis) {
        if (!coordinates[axis]) {
          inputIndices[axis] = indices[axis];
          continue;
        }
        const Expr& c = coordinates[axis];
        Expr rounded;
        if (nearestMode == "round_prefer_floor") // ties down, else the nearest
          rounded = call(CallFunction::Ceil, {c - constant(0.5)});
        else if (nearestMode == "round_prefer_ceil") // ties up, else the nearest
          rounded = call(CallFunction::Floor, {c + constant(0.5)});
        else
          rounded = call(nearestMode == "floor" ? CallFunction::Floor : CallFunction::Ceil, {c});
        inputIndices[axis] = clampIndex(cast(DataType::Int64, rounded), axis);
      }
      value = load(x, inputIndices);
    } else {
      // The blend of the taps around the coordinate of every resized axis: linear takes the two
      // neighbours floor(c) and floor(c) + 1, cubic the four from floor(c) - 1, all clamped to
      // the edge (ONNX's edge padding). With exclude_outside, taps outside the input get weight
      // 0 and the others are renormalised.
      std::vector<std::size_t> resized;
      for (std::size_t axis = 0; axis < rank; ++axis)
        if (coordinates[axis])
          resized.push_back(axis);
      const std::size_t taps = mode == "linear" ? 2 : 4;
      const std::int64_t firstTap = mode == "linear" ? 0 : -1;
      std::vector<Expr> lower(rank);
      std::vector<std::vector<Expr>> weights(rank);
      for (std::size_t axis : resized) {
        const Expr floor = call(CallFunction::Floor, {coordinates[axis]});
        lower[axis] = cast(DataType::Int64, floor);
        const Expr ratio = coordinates[axis] - floor;
        if (mode == "linear") {
          weights[axis] = {constant(1) - ratio, ratio};
          continue;
        }
        // ONNX's cubic convolution coefficients for taps at distances 1 + r, r, 1 - r, 2 - r.
        const Expr a = constant(cubicA), one = constant(1);
        const Expr near = ratio, far = one - ratio;
        auto outer = [&](const Expr& t) { // |distance| in [1, 2]: t = distance - 1
          const Expr d = t + one;
          return ((a * d - constant(5 * cubicA)) * d + constant(8 * cubicA)) * d -
                 constant(4 * cubicA);
        };
        auto inner = [&](const Expr& d) { // |distance| in [0, 1]
          return ((constant(cubicA + 2) * d - constant(cubicA + 3)) * d) * d + one;
        };
        weights[axis] = {outer(near), inner(near), inner(far), outer(far)};
        if (excludeOutside) {
          Expr total;
          for (std::size_t tap = 0; tap < taps; ++tap) {
            const Expr index = lower[axis] + intImm(firstTap + static_cast<std::int64_t>(tap));
            weights[axis][tap] = select(index >= intImm(0) && index < intImm(x->shape[axis]),
                                        weights[axis][tap], constant(0));
            total = total ? total + weights[axis][tap] : weights[axis][tap];
          }
          for (Expr& weight : weights[axis])
            weight = weight / total;
        }
      }
      std::size_t corners = 1;
      for (std::size_t k = 0; k < resized.size(); ++k)
        corners *= taps;
      for (std::size_t corner = 0; corner < corners; ++corner) {
        std::vector<Expr> inputIndices = indices;
        Expr factor;
        std::size_t rest = corner;
        for (std::size_t axis : resized) {
          const std::size_t tap = rest % taps;
          rest /= taps;
          inputIndices[axis] =
              clampIndex(lower[axis] + intImm(firstTap + static_cast<std::int64_t>(tap)), axis);
          const Expr& w = weights[axis][tap];
          factor = factor ? factor * w : w;
        }
        const Expr term = cast(real, load(x, inputIndices));
        const Expr weighted = factor ? factor * term : term;
        value = value ? value + weighted : weighted;
      }
      value = cast(x->dtype, value);
    }
    return outside ? select(outside, typedConstant(extrapolation, x->dtype), value) : value;
  })};
}

} // namespace

void registerResizeOperators(OperatorRegistry& registry) {
  registry["Resize"] = lowerResize;
}

} // namespace clustune::te::topi
