// Shape rules (ShapeRules.h) of the layout and indexing operators. Their output shapes depend
// on operands (Reshape's shape, Slice's starts, ...) that became inputs in later opsets; each
// rule reads the input when there is one and the older attribute otherwise.
#include "graph/BlockedLayout.h"
#include "graph/ShapeRules.h"

#include <algorithm>
#include <array>
#include <numeric>

namespace clustune::graph {
namespace {

std::string listText(const std::vector<std::int64_t>& values) {
  std::string text = "[";
  for (std::size_t i = 0; i < values.size(); ++i)
    text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

// Non-negative, sorted, distinct axes of a tensor of `rank`.
std::vector<std::int64_t> normalizedAxes(const ShapeContext& context,
                                         std::vector<std::int64_t> axes, std::size_t rank) {
  for (auto& axis : axes)
    axis = context.axis(axis, rank);
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    context.fail(context.node.op + " names an axis twice");
  return axes;
}

void reshape(ShapeContext& context) {
  const Value& input = context.input(0);
  std::vector<std::int64_t> target;
  if (auto operand = context.constantInts(1, "shape"))
    target = *operand;
  else if (context.node.attribute("shape")) // opset 1 to 4
    target = context.node.intsAttribute("shape");
  else
    context.fail("Reshape needs a shape");
  const bool allowZero = context.node.intAttribute("allowzero", 0) != 0;
  Shape shape;
  std::int64_t known = 1;
  int inferred = -1;
  for (std::size_t i = 0; i < target.size(); ++i) {
    std::int64_t extent = target[i];
    if (extent == 0 && !allowZero) {
      if (i >= input.shape.size())
        context.fail("Reshape's shape " + listText(target) + " copies dimension " +
                     std::to_string(i) + " of an input of rank " +
                     std::to_string(input.shape.size()));
      extent = input.shape[i];
    } else if (extent == -1) {
      if (inferred >= 0)
        context.fail("Reshape's shape " + listText(target) + " has more than one -1");
      inferred = static_cast<int>(i);
      shape.push_back(1);
      continue;
    } else if (extent < 0) {
      context.fail("Reshape's shape " + listText(target) + " has a negative dimension");
    }
    shape.push_back(extent);
    if (__builtin_mul_overflow(known, extent, &known))
      context.fail("Reshape's shape " + listText(target) + " overflows");
  }
  const std::int64_t total = input.elements();
  if (inferred >= 0) {
    if (known == 0 || total % known != 0)
      context.fail("Reshape cannot infer the -1 in " + listText(target) + " for an input of " +
                   shapeText(input.shape));
    shape[inferred] = total / known;
  } else if (known != total) {
    context.fail("Reshape's shape " + listText(target) + " has " + std::to_string(known) +
                 " elements, its input " + shapeText(input.shape) + " has " +
                 std::to_string(total));
  }
  context.setOutput(0, input.dtype, shape);
}

void flatten(ShapeContext& context) {
  const Value& input = context.input(0);
  const auto rank = static_cast<std::int64_t>(input.shape.size());
  std::int64_t axis = context.node.intAttribute("axis", 1);
  if (axis < -rank || axis > rank)
    context.fail("Flatten's axis " + std::to_string(axis) + " is out of range for rank " +
                 std::to_string(rank));
  if (axis < 0)
    axis += rank;
  const Shape outer(input.shape.begin(), input.shape.begin() + axis);
  const Shape inner(input.shape.begin() + axis, input.shape.end());
  context.setOutput(0, input.dtype, {elementCount(outer), elementCount(inner)});
}

void transpose(ShapeContext& context) {
  const Value& input = context.input(0);
  const std::size_t rank = input.shape.size();
  std::vector<std::int64_t> perm(rank);
  std::iota(perm.rbegin(), perm.rend(), 0);
  perm = context.node.intsAttribute("perm", perm);
  std::vector<std::int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::int64_t> identity(rank);
  std::iota(identity.begin(), identity.end(), 0);
  if (sorted != identity)
    context.fail("Transpose's perm " + listText(perm) + " is not a permutation of the " +
                 std::to_string(rank) + " axes");
  Shape shape;
  for (std::int64_t axis : perm)
    shape.push_back(input.shape[axis]);
  context.setOutput(0, input.dtype, shape);
}

// The blocked channel layout's transform (graph/BlockedLayout.h): NCHW to NCHW[x]c or back.
void layoutTransform(ShapeContext& context) {
  const Value& input = context.input(0);
  const auto from = parseChannelLayout(context.node.stringAttribute("src_layout"));
  const auto to = parseChannelLayout(context.node.stringAttribute("dst_layout"));
  if (!from || !to || (*from == 0) == (*to == 0))
    context.fail("LayoutTransform converts between NCHW and NCHW<x>c, not from '" +
                 context.node.stringAttribute("src_layout") + "' to '" +
                 context.node.stringAttribute("dst_layout") + "'");
  const Shape& shape = input.shape;
  if (*from == 0) {
    if (!hasBlockableRank(shape) || shape[1] % *to != 0)
      context.fail("LayoutTransform to " + channelLayoutName(*to) +
                   " needs NCHW or NCDHW input with a " + "multiple of " + std::to_string(*to) +
                   " channels, not " + shapeText(shape));
    context.setOutput(0, input.dtype, blockedActivationShape(shape, *to));
    return;
  }
  if ((shape.size() != 5 && shape.size() != 6) || shape.back() != *from)
    context.fail("LayoutTransform from " + channelLayoutName(*from) + " needs input of shape " +
                 "[N, C, H, W, " + std::to_string(*from) + "] or [N, C, D, H, W, " +
                 std::to_string(*from) + "], not " + shapeText(shape));
  context.setOutput(0, input.dtype, unblockedActivationShape(shape));
}

void concat(ShapeContext& context) {
  const Value& first = context.input(0);
  const std::size_t rank = first.shape.size();
  if (rank == 0)
    context.fail("Concat of scalars (rank 0) is not defined");
  if (!context.node.attribute("axis"))
    context.fail("Concat needs attribute 'axis'");
  const std::int64_t axis = context.axis(context.node.intAttribute("axis", 0), rank);
  Shape shape = first.shape;
  for (std::size_t i = 1; i < context.inputs.size(); ++i) {
    const Value& part = context.input(i);
    bool fits = part.shape.size() == rank && part.dtype == first.dtype;
    for (std::size_t k = 0; fits && k < rank; ++k)
      fits = static_cast<std::int64_t>(k) == axis || part.shape[k] == shape[k];
    if (!fits)
      context.fail("Concat's input " + std::to_string(i + 1) + " (" + shapeText(part.shape) + ", " +
                   dataTypeName(part.dtype) + ") does not match input 1 (" +
                   shapeText(first.shape) + ", " + dataTypeName(first.dtype) + ") off axis " +
                   std::to_string(axis));
    shape[axis] += part.shape[axis];
  }
  context.setOutput(0, first.dtype, shape);
}

// ONNX's Slice: negative starts and ends count from the end, and both are clamped to the axis
// (to [0, extent] stepping forward, [-1, extent - 1] stepping back).
void slice(ShapeContext& context) {
  const Value& input = context.input(0);
  const std::size_t rank = input.shape.size();
  std::vector<std::int64_t> starts, ends, axes, steps;
  if (context.has(1) || context.has(2)) {
    starts = *context.constantInts(1, "starts");
    ends = *context.constantInts(2, "ends");
    axes = context.constantInts(3, "axes").value_or(std::vector<std::int64_t>{});
    steps = context.constantInts(4, "steps").value_or(std::vector<std::int64_t>{});
  } else { // opset 1 to 9
    starts = context.node.intsAttribute("starts");
    ends = context.node.intsAttribute("ends");
    axes = context.node.intsAttribute("axes");
  }
  if (axes.empty()) {
    axes.resize(starts.size());
    std::iota(axes.begin(), axes.end(), 0);
  }
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    context.fail("Slice's starts, ends, axes and steps differ in length (" +
                 std::to_string(starts.size()) + ", " + std::to_string(ends.size()) + ", " +
                 std::to_string(axes.size()) + ", " + std::to_string(steps.size()) + ")");
  Shape shape = input.shape;
  std::vector<bool> seen(rank, false);
  for (std::size_t k = 0; k < starts.size(); ++k) {
    const std::int64_t axis = context.axis(axes[k], rank);
    if (seen[axis])
      context.fail("Slice names axis " + std::to_string(axis) + " twice");
    seen[axis] = true;
    const std::int64_t extent = input.shape[axis], step = steps[k];
    if (step == 0)
      context.fail("Slice's step is 0");
    auto clamp = [&](std::int64_t index, std::int64_t low, std::int64_t high) {
      if (index < 0)
        index += extent;
      return std::clamp(index, low, high);
    };
    std::int64_t count = 0;
    if (step > 0) {
      const std::int64_t first = clamp(starts[k], 0, extent), last = clamp(ends[k], 0, extent);
      count = last > first ? (last - first - 1) / step + 1 : 0;
    } else {
      const std::int64_t first = clamp(starts[k], 0, extent - 1);
      const std::int64_t last = clamp(ends[k], -1, extent - 1);
      const std::int64_t stride = step == INT64_MIN ? INT64_MAX : -step;
      count = first > last ? (first - last - 1) / stride + 1 : 0;
    }
    shape[axis] = count;
  }
  context.setOutput(0, input.dtype, shape);
}

void split(ShapeContext& context) {
  const Value& input = context.input(0);
  const std::size_t rank = input.shape.size();
  const std::int64_t axis = context.axis(context.node.intAttribute("axis", 0), rank);
  const std::int64_t extent = input.shape[axis];
  const auto pieces = static_cast<std::int64_t>(context.outputCount());
  std::vector<std::int64_t> sizes;
  if (auto operand = context.constantInts(1, "split"))
    sizes = *operand;
  else if (context.node.attribute("split")) // before opset 13
    sizes = context.node.intsAttribute("split");
  if (!sizes.empty()) {
    if (static_cast<std::int64_t>(sizes.size()) != pieces)
      context.fail("Split's split " + listText(sizes) + " has " + std::to_string(sizes.size()) +
                   " sizes for " + std::to_string(pieces) + " outputs");
    std::int64_t total = 0;
    for (std::int64_t size : sizes)
      if (size < 0 || __builtin_add_overflow(total, size, &total))
        context.fail("Split's split " + listText(sizes) + " has a negative or oversized entry");
    if (total != extent)
      context.fail("Split's split " + listText(sizes) + " adds up to " + std::to_string(total) +
                   ", not axis " + std::to_string(axis) + "'s " + std::to_string(extent));
  } else {
    if (auto count = context.node.intAttribute("num_outputs", 0); count && count != pieces)
      context.fail("Split's num_outputs " + std::to_string(count) + " disagrees with its " +
                   std::to_string(pieces) + " outputs");
    // Opset 18 lets the last piece be smaller; before it, the axis had to split evenly.
    const std::int64_t piece = (extent + pieces - 1) / pieces;
    if (context.opset < 18 && extent % pieces != 0)
      context.fail("Split cannot cut axis " + std::to_string(axis) + " of extent " +
                   std::to_string(extent) + " into " + std::to_string(pieces) + " equal pieces");
    for (std::int64_t i = 0; i < pieces; ++i)
      sizes.push_back(std::clamp<std::int64_t>(extent - i * piece, 0, piece));
  }
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    Shape shape = input.shape;
    shape[axis] = sizes[i];
    context.setOutput(i, input.dtype, shape);
  }
}

void gather(ShapeContext& context) {
  const Value& data = context.input(0);
  const Value& indices = context.input(1);
  if (isFloatingPoint(indices.dtype))
    context.fail("Gather's indices must be integers, not " +
                 std::string(dataTypeName(indices.dtype)));
  if (data.shape.empty())
    context.fail("Gather from a scalar is not defined");
  const std::int64_t axis = context.axis(context.node.intAttribute("axis", 0), data.shape.size());
  if (const Value* known = context.data[1])
    for (std::int64_t index : known->intData)
      if (index < -data.shape[axis] || index >= data.shape[axis])
        context.fail("Gather index " + std::to_string(index) + " is out of range for axis " +
                     std::to_string(axis) + " of extent " + std::to_string(data.shape[axis]));
  Shape shape(data.shape.begin(), data.shape.begin() + axis);
  shape.insert(shape.end(), indices.shape.begin(), indices.shape.end());
  shape.insert(shape.end(), data.shape.begin() + axis + 1, data.shape.end());
  context.setOutput(0, data.dtype, shape);
}

void squeeze(ShapeContext& context) {
  const Value& input = context.input(0);
  Shape shape;
  if (auto axes = context.axesOperand(1)) {
    const auto drop = normalizedAxes(context, *axes, input.shape.size());
    for (std::size_t k = 0; k < input.shape.size(); ++k) {
      const bool dropped = std::binary_search(drop.begin(), drop.end(), k);
      if (dropped && input.shape[k] != 1)
        context.fail("Squeeze's axis " + std::to_string(k) + " has extent " +
                     std::to_string(input.shape[k]) + ", not 1");
      if (!dropped)
        shape.push_back(input.shape[k]);
    }
  } else {
    std::copy_if(input.shape.begin(), input.shape.end(), std::back_inserter(shape),
                 [](std::int64_t extent) { return extent != 1; });
  }
  context.setOutput(0, input.dtype, shape);
}

void unsqueeze(ShapeContext& context) {
  const Value& input = context.input(0);
  const auto axes = context.axesOperand(1);
  if (!axes)
    context.fail("Unsqueeze needs axes");
  const std::size_t rank = input.shape.size() + axes->size();
  const auto inserted = normalizedAxes(context, *axes, rank);
  Shape shape;
  auto next = input.shape.begin();
  for (std::size_t k = 0; k < rank; ++k)
    shape.push_back(std::binary_search(inserted.begin(), inserted.end(), k) ? 1 : *next++);
  context.setOutput(0, input.dtype, shape);
}

void expand(ShapeContext& context) {
  const Value& input = context.input(0);
  if (context.rank(1) != 1)
    context.fail("Expand's shape must be 1-D, not " + shapeText(context.shape(1)));
  const auto target = *context.constantInts(1, "shape");
  context.setOutput(0, input.dtype,
                    broadcastShapes(context, {input.shape, Shape(target.begin(), target.end())}));
}

void pad(ShapeContext& context) {
  const Value& input = context.input(0);
  const std::size_t rank = input.shape.size();
  std::vector<std::int64_t> pads;
  if (auto operand = context.constantInts(1, "pads"))
    pads = *operand;
  else // before opset 11
    pads = context.node.intsAttribute("pads");
  std::vector<std::int64_t> axes(rank);
  std::iota(axes.begin(), axes.end(), 0);
  if (auto operand = context.constantInts(3, "axes")) // opset 18
    axes = *operand;
  if (pads.size() != 2 * axes.size())
    context.fail("Pad's pads " + listText(pads) + " should have " +
                 std::to_string(2 * axes.size()) + " entries, two per padded axis");
  Shape shape = input.shape;
  for (std::size_t k = 0; k < axes.size(); ++k) {
    const std::int64_t axis = context.axis(axes[k], rank);
    if (__builtin_add_overflow(shape[axis], pads[k], &shape[axis]) ||
        __builtin_add_overflow(shape[axis], pads[k + axes.size()], &shape[axis]) || shape[axis] < 0)
      context.fail("Pad's pads " + listText(pads) + " crop more than axis " + std::to_string(axis) +
                   "'s extent " + std::to_string(input.shape[axis]));
  }
  context.setOutput(0, input.dtype, shape);
}

void tile(ShapeContext& context) {
  const Value& input = context.input(0);
  const auto repeats = *context.constantInts(1, "repeats");
  if (repeats.size() != input.shape.size())
    context.fail("Tile's repeats " + listText(repeats) + " should have one entry per axis of " +
                 shapeText(input.shape));
  Shape shape = input.shape;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    if (repeats[k] < 0)
      context.fail("Tile's repeats " + listText(repeats) + " has a negative entry");
    if (__builtin_mul_overflow(shape[k], repeats[k], &shape[k]))
      context.fail("Tile's output overflows");
  }
  context.setOutput(0, input.dtype, shape);
}

constexpr std::array kRules = {
    ShapeRuleInfo{"Reshape", 1, 2, 1, 1, reshape},
    ShapeRuleInfo{"Flatten", 1, 1, 1, 1, flatten},
    ShapeRuleInfo{"Transpose", 1, 1, 1, 1, transpose},
    ShapeRuleInfo{"LayoutTransform", 1, 1, 1, 1, layoutTransform},
    ShapeRuleInfo{"Concat", 1, kVariadic, 1, 1, concat},
    ShapeRuleInfo{"Slice", 1, 5, 1, 1, slice},
    ShapeRuleInfo{"Split", 1, 2, 1, kVariadic, split},
    ShapeRuleInfo{"Gather", 2, 2, 1, 1, gather},
    ShapeRuleInfo{"Squeeze", 1, 2, 1, 1, squeeze},
    ShapeRuleInfo{"Unsqueeze", 1, 2, 1, 1, unsqueeze},
    ShapeRuleInfo{"Expand", 2, 2, 1, 1, expand},
    ShapeRuleInfo{"Pad", 1, 4, 1, 1, pad},
    ShapeRuleInfo{"Tile", 2, 2, 1, 1, tile},
};

} // namespace

std::span<const ShapeRuleInfo> layoutShapeRules() {
  return kRules;
}

} // namespace clustune::graph
