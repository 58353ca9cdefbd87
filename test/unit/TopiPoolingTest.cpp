// The pooling lowerings (te/topi/Pooling.cpp): one-node tasks are lowered with lowerTask,
// evaluated with the reference interpreter and compared with window loops written here, on
// random inputs.
#include "support/Error.h"
#include "support/Random.h"
#include "te/Interpreter.h"
#include "te/LowerTask.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <gtest/gtest.h>
#include <limits>

using namespace clustune;
using graph::Shape;

#include "TopiReferenceSupport.h"

using namespace clustune::topi_test;

namespace {

// Pooling tasks have one input.
std::vector<float> evaluatePool(const graph::Task& task, const std::vector<float>& input) {
  return evaluateLowered(task, std::vector<std::vector<float>>{input});
}

graph::Task oneNodeTask(const std::string& op, graph::Attributes attributes, const Shape& input,
                        const std::vector<Shape>& outputShapes) {
  graph::Task task;
  task.key = "0123456789abcdef";
  task.inputs.push_back({.shape = input});
  task.nodes.push_back(
      {.op = op,
       .attributes = std::move(attributes),
       .inputs = {graph::TaskValueRef::input(0)},
       .outputShapes = outputShapes,
       .outputTypes = std::vector<graph::DataType>(outputShapes.size(), graph::DataType::Float32),
       .pattern = graph::PatternKind::CommReduce});
  task.outputs.push_back(graph::TaskValueRef::node(0, 0));
  return task;
}

struct PoolCase {
  Shape data; // N, C, spatial...
  Ints kernel, strides, dilations, padsBegin, padsEnd;
  bool ceilMode = false;
};

// ONNX's output extent: floor (or ceil) of the strided window positions, plus one.
Shape poolOutputShape(const PoolCase& p) {
  Shape shape = {p.data[0], p.data[1]};
  for (std::size_t axis = 0; axis < p.kernel.size(); ++axis) {
    const std::int64_t span = p.data[2 + axis] + p.padsBegin[axis] + p.padsEnd[axis] -
                              (p.kernel[axis] - 1) * p.dilations[axis] - 1;
    const std::int64_t positions =
        p.ceilMode ? (span + p.strides[axis] - 1) / p.strides[axis] : span / p.strides[axis];
    shape.push_back(positions + 1);
  }
  return shape;
}

graph::Attributes poolAttributes(const PoolCase& p) {
  Ints pads = p.padsBegin;
  pads.insert(pads.end(), p.padsEnd.begin(), p.padsEnd.end());
  return {{"kernel_shape", p.kernel},
          {"strides", p.strides},
          {"dilations", p.dilations},
          {"pads", pads},
          {"ceil_mode", std::int64_t{p.ceilMode}}};
}

// Visits, for output `o`, every window tap: its input index and whether it lies on the input
// and on the explicitly padded input.
void forEachTap(const PoolCase& p, const Ints& o,
                const std::function<void(const Ints&, bool onInput, bool onPadded)>& visit) {
  forEachIndex(Shape(p.kernel.begin(), p.kernel.end()), [&](const Ints& k) {
    Ints position = {o[0], o[1]};
    bool onInput = true, onPadded = true;
    for (std::size_t axis = 0; axis < p.kernel.size(); ++axis) {
      const std::int64_t at =
          o[2 + axis] * p.strides[axis] - p.padsBegin[axis] + k[axis] * p.dilations[axis];
      onInput = onInput && at >= 0 && at < p.data[2 + axis];
      onPadded = onPadded && at >= -p.padsBegin[axis] && at < p.data[2 + axis] + p.padsEnd[axis];
      position.push_back(at);
    }
    visit(position, onInput, onPadded);
  });
}

std::vector<double> referenceMaxPool(const PoolCase& p, const std::vector<float>& x) {
  const Shape out = poolOutputShape(p);
  std::vector<double> y(static_cast<std::size_t>(graph::elementCount(out)));
  forEachIndex(out, [&](const Ints& o) {
    double best = -std::numeric_limits<double>::infinity();
    forEachTap(p, o, [&](const Ints& at, bool onInput, bool) {
      if (onInput)
        best = std::max<double>(best, x[offsetOf(p.data, at)]);
    });
    y[offsetOf(out, o)] = best;
  });
  return y;
}

std::vector<double> referenceAveragePool(const PoolCase& p, bool countIncludePad,
                                         const std::vector<float>& x) {
  const Shape out = poolOutputShape(p);
  std::vector<double> y(static_cast<std::size_t>(graph::elementCount(out)));
  forEachIndex(out, [&](const Ints& o) {
    double sum = 0.0;
    int count = 0;
    forEachTap(p, o, [&](const Ints& at, bool onInput, bool onPadded) {
      if (onInput)
        sum += x[offsetOf(p.data, at)];
      count += countIncludePad ? onPadded : onInput;
    });
    y[offsetOf(out, o)] = sum / count;
  });
  return y;
}

void checkMaxPool(const PoolCase& p, std::uint64_t seed) {
  Rng rng(seed);
  // All negative, so that padding with 0 instead of -inf would win some windows.
  const std::vector<float> x = randomValues(rng, p.data, -2.0, -1.0);
  const graph::Task task = oneNodeTask("MaxPool", poolAttributes(p), p.data, {poolOutputShape(p)});
  expectClose(evaluatePool(task, x), referenceMaxPool(p, x));
}

void checkAveragePool(const PoolCase& p, bool countIncludePad, std::uint64_t seed) {
  SCOPED_TRACE(testing::Message() << "count_include_pad " << countIncludePad);
  Rng rng(seed);
  // Offset from zero, so that a wrong divisor cannot hide behind small sums.
  const std::vector<float> x = randomValues(rng, p.data, 1.0, 2.0);
  graph::Attributes attributes = poolAttributes(p);
  attributes["count_include_pad"] = std::int64_t{countIncludePad};
  const graph::Task task = oneNodeTask("AveragePool", attributes, p.data, {poolOutputShape(p)});
  expectClose(evaluatePool(task, x), referenceAveragePool(p, countIncludePad, x));
}

TEST(TopiPooling, MaxPool2dPadsStrideTwo) {
  checkMaxPool({.data = {2, 3, 7, 8},
                .kernel = {3, 3},
                .strides = {2, 2},
                .dilations = {1, 1},
                .padsBegin = {1, 1},
                .padsEnd = {1, 1}},
               1);
}

TEST(TopiPooling, MaxPool2dCeilModeOverhangsTheEndPad) {
  const PoolCase p = {.data = {1, 2, 6, 7},
                      .kernel = {2, 3},
                      .strides = {2, 2},
                      .dilations = {1, 1},
                      .padsBegin = {1, 0},
                      .padsEnd = {0, 1},
                      .ceilMode = true};
  ASSERT_EQ(poolOutputShape(p), (Shape{1, 2, 4, 4})); // floor mode would give 3 x 3
  checkMaxPool(p, 2);
}

TEST(TopiPooling, MaxPool1dDilationTwo) {
  checkMaxPool({.data = {2, 3, 12},
                .kernel = {3},
                .strides = {1},
                .dilations = {2},
                .padsBegin = {2},
                .padsEnd = {1}},
               3);
}

TEST(TopiPooling, MaxPool3d) {
  checkMaxPool({.data = {1, 2, 5, 4, 6},
                .kernel = {2, 2, 3},
                .strides = {2, 1, 2},
                .dilations = {1, 1, 1},
                .padsBegin = {0, 1, 1},
                .padsEnd = {1, 0, 1}},
               4);
}

TEST(TopiPooling, UnpaddedMaxPoolIsOneReductionStage) {
  const PoolCase p = {.data = {1, 2, 6, 6},
                      .kernel = {2, 2},
                      .strides = {2, 2},
                      .dilations = {1, 1},
                      .padsBegin = {0, 0},
                      .padsEnd = {0, 0}};
  checkMaxPool(p, 5);
  const te::Workload workload =
      te::lowerTask(oneNodeTask("MaxPool", poolAttributes(p), p.data, {poolOutputShape(p)}));
  ASSERT_EQ(workload.stages.size(), 1u);
  EXPECT_TRUE(workload.stages[0]->isReduction());
}

TEST(TopiPooling, RejectsMaxPoolIndicesOutput) {
  const PoolCase p = {.data = {1, 1, 4, 4},
                      .kernel = {2, 2},
                      .strides = {2, 2},
                      .dilations = {1, 1},
                      .padsBegin = {0, 0},
                      .padsEnd = {0, 0}};
  graph::Task task =
      oneNodeTask("MaxPool", poolAttributes(p), p.data, {poolOutputShape(p), poolOutputShape(p)});
  task.nodes[0].outputTypes[1] = graph::DataType::Int64;
  try {
    te::lowerTask(task);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(error.message(), "MaxPool indices output is not supported");
  }
}

TEST(TopiPooling, AveragePool2dPadsCeilModeBothCountModes) {
  const PoolCase p = {.data = {2, 2, 7, 6},
                      .kernel = {3, 3},
                      .strides = {2, 2},
                      .dilations = {1, 1},
                      .padsBegin = {1, 0},
                      .padsEnd = {0, 1},
                      .ceilMode = true};
  ASSERT_EQ(poolOutputShape(p), (Shape{2, 2, 4, 3}));
  checkAveragePool(p, false, 6);
  checkAveragePool(p, true, 7);
}

// The last window along H reaches one past the end pad: with count_include_pad 1 the pad tap
// counts and the overhanging one does not.
TEST(TopiPooling, AveragePoolCeilModeWindowBeyondTheEndPad) {
  const PoolCase p = {.data = {1, 2, 6, 6},
                      .kernel = {3, 3},
                      .strides = {2, 2},
                      .dilations = {1, 1},
                      .padsBegin = {1, 0},
                      .padsEnd = {1, 0},
                      .ceilMode = true};
  ASSERT_EQ(poolOutputShape(p), (Shape{1, 2, 4, 3}));
  checkAveragePool(p, false, 8);
  checkAveragePool(p, true, 9);
}

TEST(TopiPooling, AveragePool2dPadsWithoutCeilMode) {
  const PoolCase p = {.data = {1, 3, 6, 6},
                      .kernel = {3, 2},
                      .strides = {1, 2},
                      .dilations = {1, 1},
                      .padsBegin = {1, 1},
                      .padsEnd = {2, 0}};
  checkAveragePool(p, false, 10);
  checkAveragePool(p, true, 11);
}

// An odd begin pad puts the first in-range tap of the first window at k = 1, which the
// divisor's ceiling division must find.
TEST(TopiPooling, AveragePool1dDilationTwo) {
  const PoolCase p = {.data = {1, 2, 9},
                      .kernel = {3},
                      .strides = {2},
                      .dilations = {2},
                      .padsBegin = {1},
                      .padsEnd = {2}};
  checkAveragePool(p, false, 12);
  checkAveragePool(p, true, 13);
}

TEST(TopiPooling, AveragePool3d) {
  const PoolCase p = {.data = {1, 2, 4, 5, 5},
                      .kernel = {2, 3, 2},
                      .strides = {1, 2, 2},
                      .dilations = {1, 1, 1},
                      .padsBegin = {0, 1, 1},
                      .padsEnd = {1, 1, 0}};
  checkAveragePool(p, false, 14);
  checkAveragePool(p, true, 15);
}

// With a begin pad as wide as the kernel, the first window holds padding only: it averages to
// 0 rather than 0 / 0. x = [x0, x1, x2], kernel 2, pads [2, 0]: windows start at -2, -1, 0, 1.
TEST(TopiPooling, AveragePoolWindowOfPaddingOnlyIsZero) {
  const PoolCase p = {.data = {1, 1, 3},
                      .kernel = {2},
                      .strides = {1},
                      .dilations = {1},
                      .padsBegin = {2},
                      .padsEnd = {0}};
  ASSERT_EQ(poolOutputShape(p), (Shape{1, 1, 4}));
  const std::vector<float> x = {0.5f, -1.25f, 2.0f};
  graph::Attributes attributes = poolAttributes(p);
  attributes["count_include_pad"] = std::int64_t{0};
  expectClose(evaluatePool(oneNodeTask("AveragePool", attributes, p.data, {{1, 1, 4}}), x),
              {0.0, 0.5, (0.5 - 1.25) / 2, (-1.25 + 2.0) / 2});
  attributes["count_include_pad"] = std::int64_t{1};
  expectClose(evaluatePool(oneNodeTask("AveragePool", attributes, p.data, {{1, 1, 4}}), x),
              {0.0, 0.5 / 2, (0.5 - 1.25) / 2, (-1.25 + 2.0) / 2});
}

void checkGlobalPool(const std::string& op, const Shape& data, std::uint64_t seed) {
  SCOPED_TRACE(op + " [" + graph::shapeToString(data) + "]");
  Rng rng(seed);
  const std::vector<float> x = randomValues(rng, data, -1.0, 1.0);
  Shape out = {data[0], data[1]};
  out.resize(data.size(), 1);
  const std::int64_t positions = graph::elementCount(data) / (data[0] * data[1]);
  std::vector<double> expected;
  for (std::int64_t plane = 0; plane < data[0] * data[1]; ++plane) {
    double sum = 0.0, best = -std::numeric_limits<double>::infinity();
    for (std::int64_t i = 0; i < positions; ++i) {
      sum += x[plane * positions + i];
      best = std::max<double>(best, x[plane * positions + i]);
    }
    expected.push_back(op == "GlobalMaxPool" ? best : sum / static_cast<double>(positions));
  }
  expectClose(evaluatePool(oneNodeTask(op, {}, data, {out}), x), expected);
}

TEST(TopiPooling, GlobalPools) {
  checkGlobalPool("GlobalAveragePool", {2, 3, 5, 4}, 16);
  checkGlobalPool("GlobalAveragePool", {1, 2, 3, 4, 2}, 17);
  checkGlobalPool("GlobalAveragePool", {2, 2, 1}, 18);
  checkGlobalPool("GlobalMaxPool", {2, 3, 7}, 19);
  checkGlobalPool("GlobalMaxPool", {1, 4, 3, 3}, 20);
}

TEST(TopiPooling, RejectsRecordedShapeThatDisagreesWithAttributes) {
  const PoolCase p = {.data = {1, 1, 5, 5},
                      .kernel = {3, 3},
                      .strides = {2, 2},
                      .dilations = {1, 1},
                      .padsBegin = {0, 0},
                      .padsEnd = {0, 0}};
  graph::Attributes attributes = poolAttributes(p);
  attributes["count_include_pad"] = std::int64_t{0};
  try {
    te::lowerTask(oneNodeTask("AveragePool", attributes, p.data, {{1, 1, 3, 3}}));
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(error.message().find("the attributes give 2 outputs along spatial axis 0"),
              std::string::npos)
        << error.message();
  }
}

} // namespace
