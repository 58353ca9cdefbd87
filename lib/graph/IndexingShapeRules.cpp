// Shape rules (ShapeRules.h) of the gather, scatter, selection and resampling operators:
// GatherElements, GatherND, the Scatter family, OneHot, TopK, Trilu, EyeLike, CumSum,
// ReverseSequence, DepthToSpace, SpaceToDepth and Resize.
#include "graph/ShapeRules.h"

#include <array>
#include <cmath>

namespace clustune::graph {
namespace {

void checkIndices(const ShapeContext& context, std::size_t index) {
  if (isFloatingPoint(context.input(index).dtype))
    context.fail(context.node.op + "'s indices must be integers, not " +
                 std::string(dataTypeName(context.input(index).dtype)));
}

void gatherElements(ShapeContext& context) {
  const Value& data = context.input(0);
  checkIndices(context, 1);
  if (context.rank(1) != data.shape.size() || data.shape.empty())
    context.fail("GatherElements' indices " + shapeText(context.shape(1)) +
                 " must have the rank of its data " + shapeText(data.shape));
  context.axis(context.node.intAttribute("axis", 0), data.shape.size());
  context.setOutput(0, data.dtype, context.shape(1));
}

void gatherND(ShapeContext& context) {
  const Value& data = context.input(0);
  checkIndices(context, 1);
  const Shape& indices = context.shape(1);
  const std::int64_t batch = context.node.intAttribute("batch_dims", 0);
  if (indices.empty() || batch < 0 || batch >= static_cast<std::int64_t>(indices.size()))
    context.fail("GatherND's indices " + shapeText(indices) + " do not fit batch_dims " +
                 std::to_string(batch));
  const std::int64_t depth = indices.back();
  if (depth < 1 || depth > static_cast<std::int64_t>(data.shape.size()) - batch)
    context.fail("GatherND's indices address " + std::to_string(depth) +
                 " axes past the batch axes of data " + shapeText(data.shape));
  Shape shape(indices.begin(), indices.end() - 1);
  shape.insert(shape.end(), data.shape.begin() + batch + depth, data.shape.end());
  context.setOutput(0, data.dtype, shape);
}

void scatterElements(ShapeContext& context) {
  const Value& data = context.input(0);
  checkIndices(context, 1);
  if (context.shape(1) != context.shape(2) || context.rank(1) != data.shape.size())
    context.fail(context.node.op + "'s indices " + shapeText(context.shape(1)) + " and updates " +
                 shapeText(context.shape(2)) + " must share one shape of the data's rank");
  context.axis(context.node.intAttribute("axis", 0), data.shape.size());
  context.setOutput(0, data.dtype, data.shape);
}

void scatterND(ShapeContext& context) {
  const Value& data = context.input(0);
  checkIndices(context, 1);
  const Shape& indices = context.shape(1);
  if (indices.empty() || indices.back() < 1 ||
      indices.back() > static_cast<std::int64_t>(data.shape.size()))
    context.fail("ScatterND's indices " + shapeText(indices) + " do not address data " +
                 shapeText(data.shape));
  Shape updates(indices.begin(), indices.end() - 1);
  updates.insert(updates.end(), data.shape.begin() + indices.back(), data.shape.end());
  if (context.shape(2) != updates)
    context.fail("ScatterND's updates are " + shapeText(context.shape(2)) + ", not " +
                 shapeText(updates));
  context.setOutput(0, data.dtype, data.shape);
}

// The integer value of a one-element operand of any numeric type (OneHot's depth may be float).
std::int64_t constantScalar(const ShapeContext& context, std::size_t index, const char* what) {
  if (elementCount(context.shape(index)) != 1)
    context.fail(context.node.op + "'s " + what + " must have one element, not " +
                 shapeText(context.shape(index)));
  const Value* known = context.data[index];
  if (!known)
    context.fail(context.node.op + "'s " + what +
                 " is only known at run time, so its output shape is dynamic; clustune needs "
                 "static shapes");
  if (!isFloatingPoint(known->dtype))
    return known->intData[0];
  const double value = known->floatData[0];
  if (!(std::fabs(value) < 0x1p62))
    context.fail(context.node.op + "'s " + what + " " + std::to_string(value) +
                 " is not a usable integer");
  return static_cast<std::int64_t>(value);
}

// OneHot's indices may be of any numeric type (ONNX truncates float ones).
void oneHot(ShapeContext& context) {
  const Shape& indices = context.shape(0);
  const std::int64_t depth = constantScalar(context, 1, "depth");
  if (depth < 1)
    context.fail("OneHot's depth " + std::to_string(depth) + " is not positive");
  if (elementCount(context.shape(2)) != 2)
    context.fail("OneHot's values must be [off, on], not " + shapeText(context.shape(2)));
  const std::int64_t axis = context.axis(context.node.intAttribute("axis", -1), indices.size() + 1);
  Shape shape = indices;
  shape.insert(shape.begin() + axis, depth);
  context.setOutput(0, context.input(2).dtype, shape);
}

void topK(ShapeContext& context) {
  const Value& input = context.input(0);
  const std::int64_t k = constantScalar(context, 1, "K");
  const std::int64_t axis = context.axis(context.node.intAttribute("axis", -1), input.shape.size());
  if (k < 0 || k > input.shape[axis])
    context.fail("TopK's K " + std::to_string(k) + " is outside [0, " +
                 std::to_string(input.shape[axis]) + "], the extent of axis " +
                 std::to_string(axis));
  Shape shape = input.shape;
  shape[axis] = k;
  context.setOutput(0, input.dtype, shape);
  context.setOutput(1, DataType::Int64, shape);
}

void trilu(ShapeContext& context) {
  if (context.rank(0) < 2)
    context.fail("Trilu's input must have rank 2 or more, not " + std::to_string(context.rank(0)));
  context.setOutput(0, context.input(0).dtype, context.shape(0));
}

void eyeLike(ShapeContext& context) {
  if (context.rank(0) != 2)
    context.fail("EyeLike's input must be a matrix, not " + shapeText(context.shape(0)));
  DataType dtype = context.input(0).dtype;
  if (context.node.attribute("dtype")) {
    const auto code = context.node.intAttribute("dtype", 0);
    const auto chosen = dataTypeFromOnnxCode(code);
    if (!chosen)
      context.fail("EyeLike to ONNX element type " + std::to_string(code) + " is not supported");
    dtype = *chosen;
  }
  context.setOutput(0, dtype, context.shape(0));
}

void cumSum(ShapeContext& context) {
  checkIndices(context, 1);
  if (elementCount(context.shape(1)) != 1)
    context.fail("CumSum's axis must have one element, not " + shapeText(context.shape(1)));
  if (const Value* axis = context.data[1])
    context.axis(axis->intData.at(0), context.rank(0));
  sameAsInput(context);
}

void reverseSequence(ShapeContext& context) {
  const std::size_t rank = context.rank(0);
  if (rank < 2)
    context.fail("ReverseSequence's input must have rank 2 or more");
  const std::int64_t batch = context.axis(context.node.intAttribute("batch_axis", 1), rank);
  context.axis(context.node.intAttribute("time_axis", 0), rank);
  if (context.shape(1) != Shape{context.shape(0)[batch]})
    context.fail("ReverseSequence's sequence_lens is " + shapeText(context.shape(1)) +
                 ", not one length per batch entry");
  sameAsInput(context);
}

// DepthToSpace moves channel blocks into space, SpaceToDepth the reverse; both on N, C, H, W.
void blockRearrangement(ShapeContext& context) {
  const Value& input = context.input(0);
  const std::int64_t block = context.node.intAttribute("blocksize", 0);
  if (input.shape.size() != 4 || block < 1)
    context.fail(context.node.op + " needs an input of rank 4 and a positive blocksize");
  Shape shape = input.shape;
  if (context.node.op == "DepthToSpace") {
    if (shape[1] % (block * block) != 0)
      context.fail("DepthToSpace's channels " + std::to_string(shape[1]) +
                   " are not a multiple of blocksize squared");
    shape = {shape[0], shape[1] / (block * block), shape[2] * block, shape[3] * block};
  } else {
    if (shape[2] % block != 0 || shape[3] % block != 0)
      context.fail("SpaceToDepth's height and width must be multiples of blocksize " +
                   std::to_string(block));
    shape = {shape[0], shape[1] * block * block, shape[2] / block, shape[3] / block};
  }
  context.setOutput(0, input.dtype, shape);
}

// Opset 11 on: X, roi, scales, sizes, where an empty tensor stands for an omitted operand. The
// output is `sizes`, or floor(extent * scale) (over the roi's span with tf_crop_and_resize),
// computed in float as ONNX does.
void resize(ShapeContext& context) {
  const Value& input = context.input(0);
  const std::size_t rank = input.shape.size();
  if (context.inputs.size() < 3)
    context.fail("Resize of opset 10 (scales as the second operand) is not supported; opset 11 "
                 "or newer is");
  if (context.node.attribute("axes") ||
      context.node.stringAttribute("keep_aspect_ratio_policy", "stretch") != "stretch")
    context.fail("Resize with axes or a keep_aspect_ratio_policy (opset 18) is not supported");
  auto given = [&](std::size_t index) {
    return context.has(index) && elementCount(context.shape(index)) != 0;
  };
  auto known = [&](std::size_t index, const char* what) -> const Value& {
    if (!context.data[index])
      context.fail(std::string("Resize's ") + what +
                   " are only known at run time, so its output shape is dynamic; clustune "
                   "needs static shapes");
    if (context.data[index]->elements() != static_cast<std::int64_t>(rank))
      context.fail(std::string("Resize's ") + what + " should have one entry per axis (" +
                   std::to_string(rank) + ")");
    return *context.data[index];
  };
  Shape shape;
  if (given(3)) {
    const Value& sizes = known(3, "sizes");
    if (isFloatingPoint(sizes.dtype))
      context.fail("Resize's sizes must be integers");
    shape.assign(sizes.intData.begin(), sizes.intData.end());
  } else if (given(2)) {
    const Value& scales = known(2, "scales");
    if (!isFloatingPoint(scales.dtype))
      context.fail("Resize's scales must be floats");
    const bool crop = context.node.stringAttribute("coordinate_transformation_mode",
                                                   "half_pixel") == "tf_crop_and_resize";
    for (std::size_t axis = 0; axis < rank; ++axis) {
      float extent = static_cast<float>(input.shape[axis]);
      if (crop && given(1)) {
        if (!context.data[1] || !isFloatingPoint(context.data[1]->dtype) ||
            context.data[1]->elements() != static_cast<std::int64_t>(2 * rank))
          context.fail("Resize's roi should be constant with two entries per axis");
        const Value& roi = *context.data[1];
        extent *= static_cast<float>(roi.floatData[axis + rank] - roi.floatData[axis]);
      }
      const float scaled = std::floor(extent * static_cast<float>(scales.floatData[axis]));
      if (!(scaled >= 0 && scaled < 0x1p62f))
        context.fail("Resize's scales give axis " + std::to_string(axis) + " an extent of " +
                     std::to_string(scaled));
      shape.push_back(static_cast<std::int64_t>(scaled));
    }
  } else {
    context.fail("Resize needs scales or sizes");
  }
  context.setOutput(0, input.dtype, shape);
}

constexpr std::array kRules = {
    ShapeRuleInfo{"GatherElements", 2, 2, 1, 1, gatherElements},
    ShapeRuleInfo{"GatherND", 2, 2, 1, 1, gatherND},
    ShapeRuleInfo{"ScatterElements", 3, 3, 1, 1, scatterElements},
    ShapeRuleInfo{"Scatter", 3, 3, 1, 1, scatterElements},
    ShapeRuleInfo{"ScatterND", 3, 3, 1, 1, scatterND},
    ShapeRuleInfo{"OneHot", 3, 3, 1, 1, oneHot},
    ShapeRuleInfo{"TopK", 2, 2, 1, 2, topK},
    ShapeRuleInfo{"Trilu", 1, 2, 1, 1, trilu},
    ShapeRuleInfo{"EyeLike", 1, 1, 1, 1, eyeLike},
    ShapeRuleInfo{"CumSum", 2, 2, 1, 1, cumSum},
    ShapeRuleInfo{"ReverseSequence", 2, 2, 1, 1, reverseSequence},
    ShapeRuleInfo{"DepthToSpace", 1, 1, 1, 1, blockRearrangement},
    ShapeRuleInfo{"SpaceToDepth", 1, 1, 1, 1, blockRearrangement},
    ShapeRuleInfo{"Resize", 1, 4, 1, 1, resize},
};

} // namespace

std::span<const ShapeRuleInfo> indexingShapeRules() {
  return kRules;
}

} // namespace clustune::graph
