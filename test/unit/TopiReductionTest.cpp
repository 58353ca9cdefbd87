// The reduction operator lowerings (te/topi/Reduction.cpp), through the public path: a hand-built
// one-node task, te::lowerTask and the reference interpreter, against hand-computed values:
// ReduceSum/Mean/Max/Min with and without keepdims, ReduceL1/L2/SumSquare/LogSum/LogSumExp,
// Softmax (rows sum to 1, stable for large inputs), LogSoftmax, LayerNormalization with its
// optional statistics outputs, ReduceProd, ArgMax/ArgMin, Hardmax, CumSum,
// InstanceNormalization and TopK.
#include "support/Error.h"
#include "te/Interpreter.h"
#include "te/LowerTask.h"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <numeric>

using namespace clustune;
using graph::DataType;
using graph::Shape;
using te::TensorData;

#include "TopiTestSupport.h"

using namespace clustune::topi_test;

namespace {

TensorData runOne(const std::string& op, const std::vector<TensorData>& inputs,
                  graph::Attributes attributes, const Shape& output) {
  auto outputs = run(oneNodeTaskOfShapes(op, std::move(attributes), inputs, {output}), inputs);
  EXPECT_EQ(outputs.size(), 1u);
  return outputs.at(0);
}

using Values = std::vector<double>;
using Ints = std::vector<std::int64_t>;

graph::Attributes reduceAttributes(Ints axes, std::int64_t keepdims) {
  return {{"axes", std::move(axes)}, {"keepdims", keepdims}};
}

// x[i, j, k] = 6i + 2j + k for the shape [2, 3, 2].
TEST(TopiReduction, ReduceSumOverTheMiddleAxis) {
  const TensorData x = iota({2, 3, 2});
  expectNear(runOne("ReduceSum", {x}, reduceAttributes({1}, 0), {2, 2}), {6, 9, 24, 27});
  const TensorData kept = runOne("ReduceSum", {x}, reduceAttributes({1}, 1), {2, 1, 2});
  EXPECT_EQ(kept.shape(), (Shape{2, 1, 2}));
  expectNear(kept, {6, 9, 24, 27});
}

TEST(TopiReduction, ReduceMeanOverAllAxes) {
  const TensorData x = iota({2, 3, 2});
  expectNear(runOne("ReduceMean", {x}, reduceAttributes({0, 1, 2}, 0), {}), {5.5});
  expectNear(runOne("ReduceMean", {x}, reduceAttributes({0, 1, 2}, 1), {1, 1, 1}), {5.5});
  // Over the last axis: the mean of 6i + 2j and 6i + 2j + 1.
  expectNear(runOne("ReduceMean", {x}, reduceAttributes({2}, 0), {2, 3}),
             {0.5, 2.5, 4.5, 6.5, 8.5, 10.5});
}

TEST(TopiReduction, ReduceMaxAndMin) {
  const TensorData x = tensorOf({2, 3}, {3, -1, 7, -4, 2, 0});
  expectNear(runOne("ReduceMax", {x}, reduceAttributes({0}, 1), {1, 3}), {3, 2, 7});
  expectNear(runOne("ReduceMin", {x}, reduceAttributes({1}, 0), {2}), {-1, -4});
  expectNear(runOne("ReduceMax", {iota({2, 3, 2})}, reduceAttributes({0, 2}, 1), {1, 3, 1}),
             {7, 9, 11});
}

TEST(TopiReduction, NormsAndSumOfSquares) {
  const TensorData x = tensorOf({2, 3}, {3, -1, 7, -4, 2, 0});
  expectNear(runOne("ReduceL1", {x}, reduceAttributes({1}, 0), {2}), {11, 6});
  expectNear(runOne("ReduceSumSquare", {x}, reduceAttributes({0}, 1), {1, 3}), {25, 5, 49});
  expectNear(runOne("ReduceL2", {x}, reduceAttributes({0}, 0), {3}), {5, std::sqrt(5.0), 7});
  expectNear(runOne("ReduceL2", {x}, reduceAttributes({0, 1}, 1), {1, 1}), {std::sqrt(79.0)});
}

TEST(TopiReduction, LogSumAndLogSumExp) {
  expectNear(
      runOne("ReduceLogSum", {tensorOf({2, 2}, {1, 2, 3, 4})}, reduceAttributes({1}, 0), {2}),
      {std::log(3.0), std::log(7.0)});
  // The second row overflows exp unless shifted by its maximum first.
  const TensorData x = tensorOf({2, 3}, {1, 2, 3, 1000, 1001, 1002});
  const double logSum = std::log(std::exp(-2.0) + std::exp(-1.0) + 1.0);
  expectNear(runOne("ReduceLogSumExp", {x}, reduceAttributes({1}, 1), {2, 1}),
             {3 + logSum, 1002 + logSum}, 1e-4);
  expectNear(runOne("ReduceLogSumExp", {x}, reduceAttributes({0}, 0), {3}),
             {1000 + std::log1p(std::exp(-999.0)), 1001.0, 1002.0}, 1e-4);
}

TEST(TopiReduction, LogSumExpOfOnlyMinusInfinityIsMinusInfinity) {
  const double infinity = std::numeric_limits<double>::infinity();
  const TensorData x = tensorOf({2, 2}, {-infinity, -infinity, 0, -infinity});
  const TensorData y = runOne("ReduceLogSumExp", {x}, reduceAttributes({1}, 0), {2});
  EXPECT_EQ(y.get(0), -infinity);
  EXPECT_NEAR(y.get(1), 0.0, 1e-6);
}

TEST(TopiReduction, NormsKeepIntegersAndLogarithmsNeedFloats) {
  const TensorData x = tensorOf({3, 2}, {1, -2, -3, 4, 5, -6}, DataType::Int64);
  const TensorData l1 = runOne("ReduceL1", {x}, reduceAttributes({0}, 0), {2});
  EXPECT_EQ(l1.dtype(), DataType::Int64);
  EXPECT_EQ(valuesOf(l1), (Values{9, 12}));
  EXPECT_EQ(valuesOf(runOne("ReduceSumSquare", {x}, reduceAttributes({1}, 0), {3})),
            (Values{5, 25, 61}));
  for (const char* op : {"ReduceL2", "ReduceLogSum", "ReduceLogSumExp"})
    EXPECT_NE(errorOf(oneNodeTaskOfShapes(op, reduceAttributes({0}, 0), {x}, {{2}}))
                  .find("needs a floating-point operand"),
              std::string::npos)
        << op;
}

TEST(TopiReduction, ReducingAScalarMapsItsOneElement) {
  // Normalisation turns "all axes" of a rank-0 input into no axes.
  const TensorData x = tensorOf({}, {-3});
  expectNear(runOne("ReduceL2", {x}, reduceAttributes({}, 1), {}), {3});
  expectNear(runOne("ReduceSumSquare", {x}, reduceAttributes({}, 1), {}), {9});
  expectNear(runOne("ReduceLogSumExp", {x}, reduceAttributes({}, 1), {}), {-3});
}

TEST(TopiReduction, EmptyAxesIsANoOp) {
  const TensorData x = tensorOf({2, 2}, {1, 2, 3, 4});
  expectNear(runOne("ReduceSum", {x}, reduceAttributes({}, 1), {2, 2}), {1, 2, 3, 4});
}

TEST(TopiReduction, IntegerSumsStayIntegers) {
  const TensorData x = iota({3, 2}, DataType::Int64);
  const TensorData sum = runOne("ReduceSum", {x}, reduceAttributes({0}, 0), {2});
  EXPECT_EQ(sum.dtype(), DataType::Int64);
  EXPECT_EQ(valuesOf(sum), (Values{6, 9}));
}

TEST(TopiReduction, RejectsAxesOutOfRange) {
  try {
    te::lowerTask(
        oneNodeTaskOfShapes("ReduceSum", reduceAttributes({2}, 0), {iota({2, 2})}, {{2}}));
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("ReduceSum: axes must be"), std::string::npos)
        << error.what();
  }
}

TEST(TopiReduction, SoftmaxRowsSumToOneAndMatchAHandComputation) {
  // exp(-2), exp(-1), 1 over their sum; the second row only shifts the first by 1000, which
  // overflows exp unless the row maximum is subtracted first.
  const TensorData x = tensorOf({2, 3}, {1, 2, 3, 1000, 1001, 1002});
  const TensorData y = runOne("Softmax", {x}, {{"axis", std::int64_t{1}}}, {2, 3});
  const double sum = std::exp(-2.0) + std::exp(-1.0) + 1.0;
  const Values row{std::exp(-2.0) / sum, std::exp(-1.0) / sum, 1.0 / sum};
  expectNear(y, {row[0], row[1], row[2], row[0], row[1], row[2]});
  EXPECT_NEAR(row[2], 0.66524096, 1e-8);
  for (int r = 0; r < 2; ++r)
    EXPECT_NEAR(y.get(3 * r) + y.get(3 * r + 1) + y.get(3 * r + 2), 1.0, 1e-6);
}

TEST(TopiReduction, SoftmaxOverTheFirstAxis) {
  // Columns [0, ln 3] and [5, 5]: [1/4, 3/4] and [1/2, 1/2].
  const TensorData x = tensorOf({2, 2}, {0, 5, std::log(3.0), 5});
  expectNear(runOne("Softmax", {x}, {{"axis", std::int64_t{0}}}, {2, 2}), {0.25, 0.5, 0.75, 0.5});
}

TEST(TopiReduction, LogSoftmaxIsTheLogarithmOfSoftmaxAndStableForLargeInputs) {
  // Rows [1, 2, 3] and [1000, 1001, 1002] both give x - 3 - log(exp(-2) + exp(-1) + 1) (shifted
  // to their own maximum); without the shift the second row's exponentials overflow.
  const TensorData x = tensorOf({2, 3}, {1, 2, 3, 1000, 1001, 1002});
  const TensorData y = runOne("LogSoftmax", {x}, {{"axis", std::int64_t{1}}}, {2, 3});
  const double logSum = std::log(std::exp(-2.0) + std::exp(-1.0) + 1.0);
  const Values row{-2 - logSum, -1 - logSum, -logSum};
  expectNear(y, {row[0], row[1], row[2], row[0], row[1], row[2]}, 1e-5);
  EXPECT_NEAR(row[2], std::log(0.66524096), 1e-7);
}

TEST(TopiReduction, LogSoftmaxOverTheFirstAxis) {
  // Columns [0, ln 3] and [5, 5]: log [1/4, 3/4] and log [1/2, 1/2].
  const TensorData x = tensorOf({2, 2}, {0, 5, std::log(3.0), 5});
  expectNear(runOne("LogSoftmax", {x}, {{"axis", std::int64_t{0}}}, {2, 2}),
             {std::log(0.25), std::log(0.5), std::log(0.75), std::log(0.5)}, 1e-6);
}

TEST(TopiReduction, LayerNormalizationWithScaleAndBias) {
  // Row [1, 2, 3, 4]: mean 2.5, variance (2.25 + 0.25 + 0.25 + 2.25) / 4 = 1.25.
  // Row [2, 2, 2, 2]: mean 2, variance 0, so the output is the bias.
  const TensorData x = tensorOf({2, 4}, {1, 2, 3, 4, 2, 2, 2, 2});
  const TensorData scale = tensorOf({4}, {1, 2, 1, 0.5});
  const TensorData bias = tensorOf({4}, {0, 0, 1, -1});
  const double epsilon = 1e-5;
  const double inverse = 1 / std::sqrt(1.25 + epsilon);
  const graph::Attributes attributes{{"axis", std::int64_t{1}}, {"epsilon", epsilon}};
  expectNear(
      runOne("LayerNormalization", {x, scale, bias}, attributes, {2, 4}),
      {-1.5 * inverse, -0.5 * inverse * 2, 0.5 * inverse + 1, 1.5 * inverse * 0.5 - 1, 0, 0, 1, -1},
      1e-5);
}

TEST(TopiReduction, LayerNormalizationStatisticsOutputs) {
  const TensorData x = tensorOf({2, 4}, {1, 2, 3, 4, 2, 2, 2, 2});
  const TensorData scale = tensorOf({4}, {1, 1, 1, 1});
  const double epsilon = 1e-5;
  const auto outputs = run(oneNodeTaskOfShapes("LayerNormalization",
                                               {{"axis", std::int64_t{1}}, {"epsilon", epsilon}},
                                               {x, scale}, {{2, 4}, {2, 1}, {2, 1}}),
                           {x, scale});
  ASSERT_EQ(outputs.size(), 3u);
  expectNear(outputs[1], {2.5, 2});
  expectNear(outputs[2], {1 / std::sqrt(1.25 + epsilon), 1 / std::sqrt(epsilon)}, 1e-3);
  EXPECT_NEAR(outputs[2].get(1) * std::sqrt(epsilon), 1.0, 1e-6);
}

TEST(TopiReduction, LayerNormalizationOverTrailingAxesWithoutBias) {
  // Normalise each [2, 2] block of a [2, 2, 2] tensor; block 0 is [0, 1, 2, 3] (mean 1.5,
  // variance 1.25), block 1 is [4, 5, 6, 7] (same deviations). Scale [[1, 2], [3, 4]].
  const TensorData x = iota({2, 2, 2});
  const TensorData scale = tensorOf({2, 2}, {1, 2, 3, 4});
  const double epsilon = 1e-5;
  const double inverse = 1 / std::sqrt(1.25 + epsilon);
  const Values block{-1.5 * inverse * 1, -0.5 * inverse * 2, 0.5 * inverse * 3, 1.5 * inverse * 4};
  Values expected = block;
  expected.insert(expected.end(), block.begin(), block.end());
  expectNear(runOne("LayerNormalization", {x, scale},
                    {{"axis", std::int64_t{1}}, {"epsilon", epsilon}}, {2, 2, 2}),
             expected, 1e-5);
}

TEST(TopiReduction, ReduceProd) {
  const TensorData x = tensorOf({2, 3}, {1, 2, 3, 4, 5, -6});
  expectNear(runOne("ReduceProd", {x}, reduceAttributes({1}, 0), {2}), {6, -120});
  expectNear(runOne("ReduceProd", {x}, reduceAttributes({0, 1}, 1), {1, 1}), {-720});
  const TensorData integer = tensorOf({3}, {2, 3, 7}, DataType::Int64);
  EXPECT_EQ(valuesOf(runOne("ReduceProd", {integer}, reduceAttributes({0}, 0), {})), (Values{42}));
}

graph::Attributes argAttributes(std::int64_t axis, std::int64_t keepdims, std::int64_t last) {
  return {{"axis", axis}, {"keepdims", keepdims}, {"select_last_index", last}};
}

TEST(TopiReduction, ArgMaxAndArgMinTakeTheFirstOrLastExtreme) {
  const TensorData x = tensorOf({2, 4}, {1, 5, 5, 0, 3, 3, -2, -2});
  auto arg = [&](const char* op, std::int64_t axis, std::int64_t keepdims, std::int64_t last,
                 const Shape& shape) {
    const auto outputs = run(
        oneNodeTask(op, argAttributes(axis, keepdims, last), {x}, {{shape, DataType::Int64}}), {x});
    EXPECT_EQ(outputs.at(0).dtype(), DataType::Int64);
    EXPECT_EQ(outputs.at(0).shape(), shape);
    return valuesOf(outputs.at(0));
  };
  EXPECT_EQ(arg("ArgMax", 1, 0, 0, {2}), (Values{1, 0}));
  EXPECT_EQ(arg("ArgMax", 1, 1, 1, {2, 1}), (Values{2, 1}));
  EXPECT_EQ(arg("ArgMin", 1, 0, 0, {2}), (Values{3, 2}));
  EXPECT_EQ(arg("ArgMin", 1, 0, 1, {2}), (Values{3, 3}));
  EXPECT_EQ(arg("ArgMax", 0, 1, 0, {1, 4}), (Values{1, 0, 0, 0}));
}

TEST(TopiReduction, HardmaxMarksTheFirstMaximum) {
  const TensorData x = tensorOf({2, 3}, {1, 3, 3, -1, -5, -2});
  expectNear(runOne("Hardmax", {x}, {{"axis", std::int64_t{1}}}, {2, 3}), {0, 1, 0, 1, 0, 0});
  expectNear(runOne("Hardmax", {x}, {{"axis", std::int64_t{0}}}, {2, 3}), {1, 1, 1, 0, 0, 0});
}

TEST(TopiReduction, CumSumForwardReverseAndExclusive) {
  const TensorData x = tensorOf({2, 3}, {1, 2, 3, 4, 5, 6});
  auto cumsum = [&](std::int64_t axis, std::int64_t exclusive, std::int64_t reverse) {
    return runOne("CumSum", {x}, {{"axis", axis}, {"exclusive", exclusive}, {"reverse", reverse}},
                  {2, 3});
  };
  expectNear(cumsum(1, 0, 0), {1, 3, 6, 4, 9, 15});
  expectNear(cumsum(1, 1, 0), {0, 1, 3, 0, 4, 9});
  expectNear(cumsum(1, 0, 1), {6, 5, 3, 15, 11, 6});
  expectNear(cumsum(1, 1, 1), {5, 3, 0, 11, 6, 0});
  expectNear(cumsum(0, 0, 0), {1, 2, 3, 5, 7, 9});
  const TensorData integer = tensorOf({3}, {1, 2, 3}, DataType::Int32);
  EXPECT_EQ(
      valuesOf(runOne(
          "CumSum", {integer},
          {{"axis", std::int64_t{0}}, {"exclusive", std::int64_t{0}}, {"reverse", std::int64_t{0}}},
          {3})),
      (Values{1, 3, 6}));
}

TEST(TopiReduction, InstanceNormalizationPerSampleAndChannel) {
  // Two channels of [1, 2, 3, 4] and [10, 10, 10, 14]: means 2.5 and 11, variances 1.25 and 3.
  const TensorData x = tensorOf({1, 2, 2, 2}, {1, 2, 3, 4, 10, 10, 10, 14});
  const TensorData scale = tensorOf({2}, {1, 2});
  const TensorData bias = tensorOf({2}, {0, 1});
  const double epsilon = 0.5;
  const double a = 1 / std::sqrt(1.25 + epsilon), b = 2 / std::sqrt(3 + epsilon);
  expectNear(
      runOne("InstanceNormalization", {x, scale, bias}, {{"epsilon", epsilon}}, {1, 2, 2, 2}),
      {-1.5 * a, -0.5 * a, 0.5 * a, 1.5 * a, -b + 1, -b + 1, -b + 1, 3 * b + 1}, 1e-5);
  EXPECT_NE(errorOf(oneNodeTaskOfShapes("InstanceNormalization", {},
                                        {x, tensorOf({3}, {1, 1, 1}), bias}, {{1, 2, 2, 2}}))
                .find("scale and bias must be float32[2]"),
            std::string::npos);
}

TEST(TopiReduction, TopKSortsValuesAndIndicesWithTiesToTheLowerIndex) {
  const TensorData x = tensorOf({2, 4}, {3, 9, 3, 1, -1, 4, 8, 4});
  auto topk = [&](std::int64_t k, std::int64_t largest) {
    return run(oneNodeTask("TopK", {{"axis", std::int64_t{1}}, {"k", k}, {"largest", largest}}, {x},
                           {{{2, k}, DataType::Float32}, {{2, k}, DataType::Int64}}),
               {x});
  };
  const auto largest = topk(3, 1);
  EXPECT_EQ(valuesOf(largest.at(0)), (Values{9, 3, 3, 8, 4, 4}));
  EXPECT_EQ(valuesOf(largest.at(1)), (Values{1, 0, 2, 2, 1, 3}));
  EXPECT_EQ(largest.at(1).dtype(), DataType::Int64);
  const auto smallest = topk(2, 0);
  EXPECT_EQ(valuesOf(smallest.at(0)), (Values{1, 3, -1, 4}));
  EXPECT_EQ(valuesOf(smallest.at(1)), (Values{3, 0, 0, 1}));
  EXPECT_NE(errorOf(oneNodeTask("TopK", {{"axis", std::int64_t{1}}, {"k", std::int64_t{5}}}, {x},
                                {{{2, 5}}, {{2, 5}, DataType::Int64}}))
                .find("k 5 is out of range for extent 4"),
            std::string::npos);
}

TEST(TopiReduction, LRNOverAChannelWindow) {
  // Channels 1, 2, 3 at one position; size 3: the windows hold {1, 2}, {1, 2, 3} and {2, 3}.
  const TensorData x = tensorOf({1, 3, 1, 1}, {1, 2, 3});
  const double alpha = 0.3, beta = 0.5, bias = 2;
  auto expected = [&](double value, double squares) {
    return value / std::pow(bias + alpha / 3 * squares, beta);
  };
  expectNear(runOne("LRN", {x},
                    {{"size", std::int64_t{3}}, {"alpha", alpha}, {"beta", beta}, {"bias", bias}},
                    {1, 3, 1, 1}),
             {expected(1, 5), expected(2, 14), expected(3, 13)}, 1e-6);
}

TEST(TopiReduction, MeanVarianceNormalizationOverTheGivenAxes) {
  // Two channels of [1, 3] and [2, 6]: means 2 and 4, standard deviations 1 and 2.
  const TensorData x = tensorOf({1, 2, 1, 2}, {1, 3, 2, 6});
  expectNear(runOne("MeanVarianceNormalization", {x}, {{"axes", Ints{0, 2, 3}}}, {1, 2, 1, 2}),
             {-1, 1, -1, 1}, 1e-6);
}

} // namespace
