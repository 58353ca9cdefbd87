// The Conv and ConvTranspose lowerings (te/topi/Convolution.cpp, ConvTranspose.cpp): one-node tasks
// are lowered with lowerTask, evaluated with the reference interpreter and compared with a direct
// convolution (and, for ConvTranspose, a scatter-style transposed convolution) written here with
// plain loops, on random inputs.
#include "support/Error.h"
#include "support/Random.h"
#include "te/Interpreter.h"
#include "te/LowerTask.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <gtest/gtest.h>
#include <optional>

using namespace clustune;
using graph::Shape;

#include "TopiReferenceSupport.h"

using namespace clustune::topi_test;

namespace {

// A task of one node whose operands are task inputs; a missing shape is an omitted operand.
graph::Task oneNodeTask(const std::string& op, graph::Attributes attributes,
                        const std::vector<std::optional<Shape>>& operandShapes,
                        const Shape& outputShape) {
  graph::Task task;
  task.key = "0123456789abcdef";
  graph::TaskNode node{.op = op,
                       .attributes = std::move(attributes),
                       .inputs = {},
                       .outputShapes = {outputShape},
                       .outputTypes = {graph::DataType::Float32},
                       .pattern = graph::PatternKind::OutEWiseFusable};
  for (const auto& shape : operandShapes) {
    if (!shape) {
      node.inputs.push_back(graph::TaskValueRef::omitted());
      continue;
    }
    node.inputs.push_back(graph::TaskValueRef::input(static_cast<int>(task.inputs.size())));
    task.inputs.push_back({.shape = *shape,
                           .kind = task.inputs.empty() ? graph::TaskInput::Kind::Activation
                                                       : graph::TaskInput::Kind::Weight});
  }
  task.nodes.push_back(std::move(node));
  task.outputs.push_back(graph::TaskValueRef::node(0, 0));
  return task;
}

struct ConvCase {
  Shape data;   // N, C, spatial...
  Shape weight; // Conv: M, C/group, kernel...; ConvTranspose: C, M/group, kernel...
  Ints strides, dilations, padsBegin, padsEnd;
  std::int64_t group = 1;
  bool bias = false;
  Ints outputPadding = {}; // ConvTranspose only
};

std::size_t spatialRank(const ConvCase& c) {
  return c.data.size() - 2;
}

graph::Attributes convAttributes(const ConvCase& c) {
  Ints pads = c.padsBegin;
  pads.insert(pads.end(), c.padsEnd.begin(), c.padsEnd.end());
  graph::Attributes attributes = {{"kernel_shape", Ints(c.weight.begin() + 2, c.weight.end())},
                                  {"strides", c.strides},
                                  {"dilations", c.dilations},
                                  {"pads", pads},
                                  {"group", c.group}};
  if (!c.outputPadding.empty())
    attributes["output_padding"] = c.outputPadding;
  return attributes;
}

Shape convOutputShape(const ConvCase& c) {
  Shape shape = {c.data[0], c.weight[0]};
  for (std::size_t axis = 0; axis < spatialRank(c); ++axis) {
    const std::int64_t reach = (c.weight[2 + axis] - 1) * c.dilations[axis] + 1;
    shape.push_back(
        (c.data[2 + axis] + c.padsBegin[axis] + c.padsEnd[axis] - reach) / c.strides[axis] + 1);
  }
  return shape;
}

// y[n, m, o] = bias[m] + sum over c of m's group and taps k of x[n, c, o*s - pad + k*d] * w[m, c',
// k].
std::vector<double> directConv(const ConvCase& c, const std::vector<float>& x,
                               const std::vector<float>& w, const std::vector<float>& bias) {
  const Shape out = convOutputShape(c);
  const std::int64_t inPerGroup = c.weight[1], outPerGroup = c.weight[0] / c.group;
  const Shape kernel(c.weight.begin() + 2, c.weight.end());
  std::vector<double> y(static_cast<std::size_t>(graph::elementCount(out)));
  forEachIndex(out, [&](const Ints& o) {
    double sum = c.bias ? bias[o[1]] : 0.0;
    for (std::int64_t ci = 0; ci < inPerGroup; ++ci)
      forEachIndex(kernel, [&](const Ints& k) {
        Ints xIndex = {o[0], o[1] / outPerGroup * inPerGroup + ci};
        for (std::size_t axis = 0; axis < kernel.size(); ++axis) {
          const std::int64_t position =
              o[2 + axis] * c.strides[axis] - c.padsBegin[axis] + k[axis] * c.dilations[axis];
          if (position < 0 || position >= c.data[2 + axis])
            return;
          xIndex.push_back(position);
        }
        Ints wIndex = {o[1], ci};
        wIndex.insert(wIndex.end(), k.begin(), k.end());
        sum += static_cast<double>(x[offsetOf(c.data, xIndex)]) * w[offsetOf(c.weight, wIndex)];
      });
    y[offsetOf(out, o)] = sum;
  });
  return y;
}

Shape convTransposeOutputShape(const ConvCase& c) {
  Shape shape = {c.data[0], c.weight[1] * c.group};
  for (std::size_t axis = 0; axis < spatialRank(c); ++axis)
    shape.push_back(c.strides[axis] * (c.data[2 + axis] - 1) + c.outputPadding[axis] +
                    (c.weight[2 + axis] - 1) * c.dilations[axis] + 1 - c.padsBegin[axis] -
                    c.padsEnd[axis]);
  return shape;
}

// Every input element scatters x * w into output i*s - pad + k*d of each channel of its group.
std::vector<double> scatterConvTranspose(const ConvCase& c, const std::vector<float>& x,
                                         const std::vector<float>& w,
                                         const std::vector<float>& bias) {
  const Shape out = convTransposeOutputShape(c);
  const std::int64_t inPerGroup = c.data[1] / c.group, outPerGroup = c.weight[1];
  const Shape kernel(c.weight.begin() + 2, c.weight.end());
  std::vector<double> y(static_cast<std::size_t>(graph::elementCount(out)), 0.0);
  if (c.bias)
    forEachIndex(out, [&](const Ints& o) { y[offsetOf(out, o)] = bias[o[1]]; });
  forEachIndex(c.data, [&](const Ints& i) {
    const std::int64_t group = i[1] / inPerGroup;
    for (std::int64_t mo = 0; mo < outPerGroup; ++mo)
      forEachIndex(kernel, [&](const Ints& k) {
        Ints yIndex = {i[0], group * outPerGroup + mo};
        for (std::size_t axis = 0; axis < kernel.size(); ++axis) {
          const std::int64_t position =
              i[2 + axis] * c.strides[axis] - c.padsBegin[axis] + k[axis] * c.dilations[axis];
          if (position < 0 || position >= out[2 + axis])
            return;
          yIndex.push_back(position);
        }
        Ints wIndex = {i[1], mo};
        wIndex.insert(wIndex.end(), k.begin(), k.end());
        y[offsetOf(out, yIndex)] +=
            static_cast<double>(x[offsetOf(c.data, i)]) * w[offsetOf(c.weight, wIndex)];
      });
  });
  return y;
}

// Lowers and evaluates `op` for the case and returns its output next to the random inputs.
struct Evaluated {
  std::vector<float> x, w, bias, y;
};

Evaluated evaluateCase(const std::string& op, const ConvCase& c, const Shape& output,
                       std::uint64_t seed, graph::Attributes attributes) {
  Rng rng(seed);
  Evaluated result;
  result.x = randomValues(rng, c.data);
  result.w = randomValues(rng, c.weight);
  const std::int64_t outChannels = output[1];
  std::vector<std::optional<Shape>> operands = {c.data, c.weight};
  std::vector<std::vector<float>> inputs = {result.x, result.w};
  if (c.bias) {
    result.bias = randomValues(rng, {outChannels});
    operands.push_back(Shape{outChannels});
    inputs.push_back(result.bias);
  }
  result.y = evaluateLowered(oneNodeTask(op, std::move(attributes), operands, output), inputs);
  return result;
}

void checkConv(const ConvCase& c, std::uint64_t seed) {
  const Evaluated run = evaluateCase("Conv", c, convOutputShape(c), seed, convAttributes(c));
  expectClose(run.y, directConv(c, run.x, run.w, run.bias));
}

void checkConvTranspose(const ConvCase& c, std::uint64_t seed) {
  const Evaluated run =
      evaluateCase("ConvTranspose", c, convTransposeOutputShape(c), seed, convAttributes(c));
  expectClose(run.y, scatterConvTranspose(c, run.x, run.w, run.bias));
}

TEST(TopiConvolution, Conv2dStrideTwoAsymmetricPadsDilationTwoBias) {
  checkConv({.data = {2, 3, 9, 10},
             .weight = {4, 3, 3, 2},
             .strides = {2, 2},
             .dilations = {2, 2},
             .padsBegin = {1, 0},
             .padsEnd = {2, 1},
             .bias = true},
            1);
}

TEST(TopiConvolution, Conv2dTwoGroups) {
  checkConv({.data = {1, 4, 6, 7},
             .weight = {6, 2, 3, 3},
             .strides = {1, 1},
             .dilations = {1, 1},
             .padsBegin = {1, 1},
             .padsEnd = {1, 1},
             .group = 2},
            2);
}

TEST(TopiConvolution, Conv2dDepthwiseWithChannelMultiplier) {
  checkConv({.data = {2, 4, 7, 7},
             .weight = {8, 1, 3, 3},
             .strides = {2, 2},
             .dilations = {1, 1},
             .padsBegin = {1, 1},
             .padsEnd = {1, 1},
             .group = 4,
             .bias = true},
            3);
}

TEST(TopiConvolution, Conv1dStrideThreeAsymmetricPads) {
  checkConv({.data = {2, 3, 11},
             .weight = {2, 3, 4},
             .strides = {3},
             .dilations = {1},
             .padsBegin = {2},
             .padsEnd = {1},
             .bias = true},
            4);
}

TEST(TopiConvolution, Conv3dMixedStridesPadsDilations) {
  checkConv({.data = {1, 2, 5, 6, 6},
             .weight = {3, 2, 3, 2, 2},
             .strides = {1, 2, 1},
             .dilations = {1, 1, 2},
             .padsBegin = {1, 0, 1},
             .padsEnd = {1, 1, 0},
             .bias = true},
            5);
}

TEST(TopiConvolution, UnpaddedPointwiseConvIsOneStageWithoutPadding) {
  const ConvCase c = {.data = {1, 5, 4, 3},
                      .weight = {3, 5, 1, 1},
                      .strides = {1, 1},
                      .dilations = {1, 1},
                      .padsBegin = {0, 0},
                      .padsEnd = {0, 0}};
  checkConv(c, 6);
  const te::Workload workload =
      te::lowerTask(oneNodeTask("Conv", convAttributes(c), {c.data, c.weight}, convOutputShape(c)));
  ASSERT_EQ(workload.stages.size(), 1u);
  EXPECT_TRUE(workload.stages[0]->isReduction());
  // Only the channel axis is reduced: 1x1 kernel axes add no loops.
  EXPECT_EQ(workload.stages[0]->body->reduceAxes.size(), 1u);
}

TEST(TopiConvolution, PaddedConvWithBiasHasPadConvAndBiasStages) {
  const ConvCase c = {.data = {1, 2, 5, 5},
                      .weight = {2, 2, 3, 3},
                      .strides = {1, 1},
                      .dilations = {1, 1},
                      .padsBegin = {1, 1},
                      .padsEnd = {1, 1},
                      .bias = true};
  const te::Workload workload = te::lowerTask(
      oneNodeTask("Conv", convAttributes(c), {c.data, c.weight, Shape{2}}, convOutputShape(c)));
  ASSERT_EQ(workload.stages.size(), 3u);
  EXPECT_EQ(workload.stages[0]->shape, (Shape{1, 2, 7, 7}));
  EXPECT_FALSE(workload.stages[0]->isReduction());
  EXPECT_TRUE(workload.stages[1]->isReduction());
  EXPECT_FALSE(workload.stages[2]->isReduction());
  EXPECT_EQ(workload.outputs[0], workload.stages[2]);
}

TEST(TopiConvolution, ConvTranspose2dStrideTwoOutputPaddingGroupsBias) {
  checkConvTranspose({.data = {2, 4, 4, 5},
                      .weight = {4, 3, 3, 3},
                      .strides = {2, 2},
                      .dilations = {1, 1},
                      .padsBegin = {1, 0},
                      .padsEnd = {1, 2},
                      .group = 2,
                      .bias = true,
                      .outputPadding = {1, 1}},
                     7);
}

TEST(TopiConvolution, ConvTranspose1dStrideThreeDilationTwo) {
  checkConvTranspose({.data = {1, 3, 6},
                      .weight = {3, 2, 3},
                      .strides = {3},
                      .dilations = {2},
                      .padsBegin = {2},
                      .padsEnd = {1},
                      .outputPadding = {2}},
                     8);
}

TEST(TopiConvolution, ConvTranspose3dDepthwise) {
  checkConvTranspose({.data = {1, 2, 3, 4, 3},
                      .weight = {2, 1, 2, 3, 2},
                      .strides = {2, 1, 2},
                      .dilations = {1, 1, 1},
                      .padsBegin = {0, 1, 1},
                      .padsEnd = {0, 1, 0},
                      .group = 2,
                      .bias = true,
                      .outputPadding = {1, 0, 0}},
                     9);
}

// The same by columns: a 3-D kernel's taps flattened into one axis of 12.
TEST(TopiConvolution, ConvTranspose3dDepthwiseOfASmallInput) {
  checkConvTranspose({.data = {1, 2, 2, 1, 2},
                      .weight = {2, 1, 2, 3, 2},
                      .strides = {2, 1, 2},
                      .dilations = {1, 1, 1},
                      .padsBegin = {0, 1, 1},
                      .padsEnd = {0, 1, 0},
                      .group = 2,
                      .bias = true,
                      .outputPadding = {1, 0, 0}},
                     19);
}

TEST(TopiConvolution, ConvTransposePadsLargerThanKernelReachCrop) {
  // A begin pad beyond (kernel - 1) * dilation starts the output inside the dilated input.
  checkConvTranspose({.data = {1, 2, 5},
                      .weight = {2, 2, 2},
                      .strides = {2},
                      .dilations = {1},
                      .padsBegin = {3},
                      .padsEnd = {2},
                      .outputPadding = {0}},
                     10);
}

// DCGAN's layers: a 1x1 and a 4x4 input by columns, and stride 2 with kernel 4 by phases (4x8
// has more positions than the kernel has taps), two taps per axis and phase.
TEST(TopiConvolution, ConvTransposeDcganLayers) {
  checkConvTranspose({.data = {1, 5, 1, 1},
                      .weight = {5, 3, 4, 4},
                      .strides = {1, 1},
                      .dilations = {1, 1},
                      .padsBegin = {0, 0},
                      .padsEnd = {0, 0},
                      .outputPadding = {0, 0}},
                     15);
  for (const std::int64_t width : {4, 8})
    checkConvTranspose({.data = {1, 3, 4, width},
                        .weight = {3, 2, 4, 4},
                        .strides = {2, 2},
                        .dilations = {1, 1},
                        .padsBegin = {1, 1},
                        .padsEnd = {1, 1},
                        .bias = true,
                        .outputPadding = {0, 0}},
                       16 + width);
}

// A kernel that the stride does not divide: the phases have 2 and 1 taps, the weight is padded;
// by columns (a small input, here with groups and a bias), the last column of a phase is absent.
TEST(TopiConvolution, ConvTransposeKernelNotAMultipleOfTheStride) {
  checkConvTranspose({.data = {1, 2, 6, 7},
                      .weight = {2, 3, 3, 5},
                      .strides = {2, 3},
                      .dilations = {1, 1},
                      .padsBegin = {0, 2},
                      .padsEnd = {1, 0},
                      .outputPadding = {1, 2}},
                     17);
  checkConvTranspose({.data = {2, 4, 3, 3},
                      .weight = {4, 3, 3, 5},
                      .strides = {2, 3},
                      .dilations = {1, 1},
                      .padsBegin = {1, 2},
                      .padsEnd = {1, 0},
                      .group = 2,
                      .bias = true,
                      .outputPadding = {1, 2}},
                     18);
}

te::Workload lowerConvTransposeCase(const ConvCase& c) {
  return te::lowerTask(oneNodeTask("ConvTranspose", convAttributes(c), {c.data, c.weight},
                                   convTransposeOutputShape(c)));
}

std::vector<te::Tensor> reductionStages(const te::Workload& workload) {
  std::vector<te::Tensor> reductions;
  for (const te::Tensor& stage : workload.stages)
    if (stage->isReduction())
      reductions.push_back(stage);
  return reductions;
}

std::vector<std::int64_t> reductionExtents(const te::Tensor& stage) {
  std::vector<std::int64_t> extents;
  for (const te::IterVar& axis : stage->body->reduceAxes)
    extents.push_back(axis.extent);
  return extents;
}

// By phases, the reduction has one step per product the operator needs (away from the borders):
// input channels times ceil(kernel / stride) per axis, where the zero-dilated form has the whole
// kernel per axis.
TEST(TopiConvolution, ConvTransposeByPhasesReducesOverTapsPerPhase) {
  const te::Workload workload = lowerConvTransposeCase({.data = {1, 8, 6, 6},
                                                        .weight = {8, 6, 4, 4},
                                                        .strides = {2, 2},
                                                        .dilations = {1, 1},
                                                        .padsBegin = {1, 1},
                                                        .padsEnd = {1, 1},
                                                        .outputPadding = {0, 0}});
  const std::vector<te::Tensor> reductions = reductionStages(workload);
  ASSERT_EQ(reductions.size(), 1u);
  EXPECT_EQ(reductionExtents(reductions[0]), (std::vector<std::int64_t>{8, 2, 2}));
  // N, C_out, two phases and six quotients per axis for outputs 0..11.
  EXPECT_EQ(reductions[0]->shape, (Shape{1, 6, 2, 2, 6, 6}));
  EXPECT_EQ(workload.outputs[0]->shape, (Shape{1, 6, 12, 12}));
}

// A small input goes by columns: every (input, tap) product once, with the 16 taps on one axis,
// then two columns per axis summed into each output.
TEST(TopiConvolution, ConvTransposeOfASmallInputGoesByColumns) {
  const te::Workload workload = lowerConvTransposeCase({.data = {1, 8, 4, 4},
                                                        .weight = {8, 6, 4, 4},
                                                        .strides = {2, 2},
                                                        .dilations = {1, 1},
                                                        .padsBegin = {1, 1},
                                                        .padsEnd = {1, 1},
                                                        .outputPadding = {0, 0}});
  const std::vector<te::Tensor> reductions = reductionStages(workload);
  ASSERT_EQ(reductions.size(), 2u);
  EXPECT_EQ(reductions[0]->shape, (Shape{1, 6, 4, 4, 16}));
  EXPECT_EQ(reductionExtents(reductions[0]), (std::vector<std::int64_t>{8}));
  EXPECT_EQ(reductions[1]->shape, (Shape{1, 6, 8, 8}));
  EXPECT_EQ(reductionExtents(reductions[1]), (std::vector<std::int64_t>{2, 2}));
}

// With `output_shape` (and no auto_pad) ONNX derives the pads from the output shape, putting
// the larger half of the total at the beginning; SAME_UPPER puts it at the end.
TEST(TopiConvolution, ConvTransposePadsFromOutputShapeAndAutoPad) {
  ConvCase c = {.data = {1, 2, 5},
                .weight = {2, 3, 4},
                .strides = {2},
                .dilations = {1},
                .padsBegin = {0},
                .padsEnd = {0},
                .outputPadding = {0}};
  // Full extent 2 * 4 + 4 = 12; an output of 9 leaves a total padding of 3.
  const Shape output = {1, 3, 9};
  graph::Attributes withOutputShape = convAttributes(c);
  withOutputShape["output_shape"] = Ints{9};
  Evaluated run = evaluateCase("ConvTranspose", c, output, 11, withOutputShape);
  c.padsBegin = {2};
  c.padsEnd = {1};
  expectClose(run.y, scatterConvTranspose(c, run.x, run.w, run.bias));

  graph::Attributes sameUpper = convAttributes(c);
  sameUpper["pads"] = Ints{0, 0};
  sameUpper["auto_pad"] = std::string("SAME_UPPER");
  run = evaluateCase("ConvTranspose", c, output, 12, sameUpper);
  c.padsBegin = {1};
  c.padsEnd = {2};
  expectClose(run.y, scatterConvTranspose(c, run.x, run.w, run.bias));
}

// An output_shape beyond what the input reaches gives a negative total padding; as in the ONNX
// reference implementation (and the backend test convtranspose_output_shape), the extra
// positions receive no input: a negative end pad, or a negative begin pad with SAME_UPPER.
TEST(TopiConvolution, ConvTransposeOutputShapeBeyondTheInputReach) {
  ConvCase c = {.data = {1, 2, 3},
                .weight = {2, 2, 3},
                .strides = {3},
                .dilations = {1},
                .padsBegin = {0},
                .padsEnd = {0},
                .bias = true,
                .outputPadding = {0}};
  // Full extent 3 * 2 + 3 = 9; an output of 10 leaves a total padding of -1.
  const Shape output = {1, 2, 10};
  graph::Attributes withOutputShape = convAttributes(c);
  withOutputShape["output_shape"] = Ints{10};
  Evaluated run = evaluateCase("ConvTranspose", c, output, 13, withOutputShape);
  c.padsEnd = {-1};
  expectClose(run.y, scatterConvTranspose(c, run.x, run.w, run.bias));

  graph::Attributes sameUpper = convAttributes(c);
  sameUpper["pads"] = Ints{0, 0};
  sameUpper["output_shape"] = Ints{10};
  sameUpper["auto_pad"] = std::string("SAME_UPPER");
  run = evaluateCase("ConvTranspose", c, output, 14, sameUpper);
  c.padsBegin = {-1};
  c.padsEnd = {0};
  expectClose(run.y, scatterConvTranspose(c, run.x, run.w, run.bias));
}

TEST(TopiConvolution, RejectsOutputShapeThatDisagreesWithAttributes) {
  const ConvCase c = {.data = {1, 2, 5, 5},
                      .weight = {2, 2, 3, 3},
                      .strides = {1, 1},
                      .dilations = {1, 1},
                      .padsBegin = {0, 0},
                      .padsEnd = {0, 0}};
  const graph::Task task = oneNodeTask("Conv", convAttributes(c), {c.data, c.weight}, {1, 2, 5, 5});
  try {
    te::lowerTask(task);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("Conv: the attributes give output shape [1x2x3x3]"),
              std::string::npos)
        << error.what();
  }
}

TEST(TopiConvolution, RejectsChannelsThatDoNotDivideIntoGroups) {
  ConvCase c = {.data = {1, 6, 5, 5},
                .weight = {4, 3, 3, 3},
                .strides = {1, 1},
                .dilations = {1, 1},
                .padsBegin = {0, 0},
                .padsEnd = {0, 0},
                .group = 3};
  EXPECT_THROW(
      te::lowerTask(oneNodeTask("Conv", convAttributes(c), {c.data, c.weight}, {1, 4, 3, 3})),
      Error);
}

} // namespace
