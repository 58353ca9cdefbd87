// The correctness check of measurement (measure/Correctness.h): the tolerance at its edges,
// NaN and infinity, shape and count mismatches, and the interpreter's reference on the seeded
// inputs compared with the same computation written here.
#include "MeasureTestSupport.h"
#include "measure/Correctness.h"
#include "measure/SeededInputs.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace clustune;
using namespace clustune::measure;

namespace {

te::TensorData floats(std::vector<double> values) {
  te::TensorData data(graph::DataType::Float32, {static_cast<std::int64_t>(values.size())});
  for (std::size_t i = 0; i < values.size(); ++i)
    data.set(static_cast<std::int64_t>(i), values[i]);
  return data;
}

TEST(MeasureCorrectnessTest, ToleranceIsAbsolutePlusRelative) {
  // 1e-4 + 1e-3 * 100 = 0.1001 around 100; 1e-4 around 0.
  EXPECT_TRUE(checkAgainstReference({floats({100.09, 0.00009})}, {floats({100, 0})}).ok);
  const CheckResult beyond = checkAgainstReference({floats({100.11, 0})}, {floats({100, 0})});
  EXPECT_FALSE(beyond.ok);
  EXPECT_NE(beyond.detail.find("element 0"), std::string::npos) << beyond.detail;
  EXPECT_FALSE(checkAgainstReference({floats({0, 0.0002})}, {floats({0, 0})}).ok);
}

TEST(MeasureCorrectnessTest, TheAbsoluteToleranceGrowsWithTheOutputsMagnitude) {
  // A long reduction (RMS 40) rounds to ~1e-4 near zero in another summation order; the
  // dataset met 0.00197 against 0.00184 in a 3-D convolution (r3d_18).
  const te::TensorData reference = floats({40, -40, 40, 0.0018414855});
  EXPECT_TRUE(checkAgainstReference({floats({40, -40, 40, 0.00197297335})}, {reference}).ok);
  EXPECT_FALSE(checkAgainstReference({floats({40, -40, 40, 0.0118})}, {reference}).ok);
  EXPECT_FALSE(checkAgainstReference({floats({40, -39.9, 40, 0.0018})}, {reference}).ok);
}

TEST(MeasureCorrectnessTest, NanAndInfinityMustMatchInKind) {
  const double nan = std::nan(""), inf = INFINITY;
  EXPECT_TRUE(checkAgainstReference({floats({nan, inf, -inf})}, {floats({nan, inf, -inf})}).ok);
  EXPECT_FALSE(checkAgainstReference({floats({nan})}, {floats({1})}).ok);
  EXPECT_FALSE(checkAgainstReference({floats({1})}, {floats({nan})}).ok);
  EXPECT_FALSE(checkAgainstReference({floats({inf})}, {floats({-inf})}).ok);
}

TEST(MeasureCorrectnessTest, IntegersMustBeEqual) {
  te::TensorData actual(graph::DataType::Int64, {1}), expected(graph::DataType::Int64, {1});
  actual.set(0, 3);
  expected.set(0, 3);
  EXPECT_TRUE(checkAgainstReference({actual}, {expected}).ok);
  actual.set(0, 4);
  EXPECT_FALSE(checkAgainstReference({actual}, {expected}).ok);
}

TEST(MeasureCorrectnessTest, ShapesAndCountsMustAgree) {
  EXPECT_FALSE(checkAgainstReference({floats({1, 2})}, {floats({1})}).ok);
  EXPECT_FALSE(checkAgainstReference({floats({1}), floats({1})}, {floats({1})}).ok);
}

TEST(MeasureCorrectnessTest, TheReferenceIsTheTaskOnTheSeededInputs) {
  const graph::Task task = measure::testing::addReluTask(3, 5);
  const auto reference = referenceOutputs(task, 9);
  const auto inputs = generateInputs(argumentSpecs(task, te::lowerTask(task)), 9);
  ASSERT_EQ(reference.size(), 1u);
  ASSERT_EQ(reference[0].shape(), (graph::Shape{3, 5}));
  for (std::int64_t e = 0; e < 15; ++e)
    EXPECT_FLOAT_EQ(reference[0].get(e), std::max(inputs[0].get(e) + inputs[1].get(e), 0.0));
  EXPECT_EQ(referenceOutputs(task, 9), reference);
}

} // namespace
