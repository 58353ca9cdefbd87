// The seeded input generator (measure/SeededInputs.h) that the worker and the reference share:
// the same seed must give the same values, inputs must not depend on each other, and fixed
// constants and integer tensors must keep their documented values.
#include "measure/SeededInputs.h"

#include "MeasureTestSupport.h"
#include "support/Error.h"

#include <gtest/gtest.h>

using namespace clustune;
using namespace clustune::measure;

namespace {

std::vector<ArgumentSpec> specs() {
  return {{.name = "x", .shape = {4, 8}},
          {.name = "y", .shape = {3}},
          {.name = "exponent", .shape = {}, .fixedValues = {2.0}},
          {.name = "indices", .dtype = graph::DataType::Int64, .shape = {5}},
          {.name = "mask", .dtype = graph::DataType::Bool, .shape = {64}},
          {.name = "out", .shape = {4, 8}, .isOutput = true}};
}

TEST(SeededInputsTest, TheSameSeedGivesTheSameInputs) {
  const auto first = generateInputs(specs(), 5);
  const auto again = generateInputs(specs(), 5);
  const auto other = generateInputs(specs(), 6);
  ASSERT_EQ(first.size(), 5u); // the output gets no input
  EXPECT_EQ(first, again);
  EXPECT_NE(first[0], other[0]);
}

TEST(SeededInputsTest, ValuesFollowTheirSpec) {
  const auto inputs = generateInputs(specs(), 5);
  EXPECT_EQ(inputs[0].shape(), (graph::Shape{4, 8}));
  bool sawNegative = false, sawPositive = false;
  for (std::int64_t e = 0; e < inputs[0].elements(); ++e) {
    const double value = inputs[0].get(e);
    EXPECT_GE(value, -1.0);
    EXPECT_LE(value, 1.0);
    sawNegative |= value < 0;
    sawPositive |= value > 0;
  }
  EXPECT_TRUE(sawNegative && sawPositive);
  EXPECT_EQ(inputs[2].get(0), 2.0);
  for (std::int64_t e = 0; e < 5; ++e)
    EXPECT_EQ(inputs[3].get(e), 0.0);
  double ones = 0;
  for (std::int64_t e = 0; e < 64; ++e) {
    EXPECT_TRUE(inputs[4].get(e) == 0.0 || inputs[4].get(e) == 1.0);
    ones += inputs[4].get(e);
  }
  EXPECT_GT(ones, 0);
  EXPECT_LT(ones, 64);
}

TEST(SeededInputsTest, AnInputDependsOnlyOnTheSeedAndItsPosition) {
  std::vector<ArgumentSpec> bigger = specs();
  bigger[1].shape = {300};
  EXPECT_EQ(generateInputs(specs(), 5)[0], generateInputs(bigger, 5)[0]);
  EXPECT_EQ(generateInputs(specs(), 5)[4], generateInputs(bigger, 5)[4]);
}

TEST(SeededInputsTest, FixedValuesMustCoverTheTensor) {
  std::vector<ArgumentSpec> bad = specs();
  bad[2].shape = {2};
  EXPECT_THROW(generateInputs(bad, 5), Error);
}

TEST(SeededInputsTest, ArgumentsOfATaskAreItsInputsThenItsOutputs) {
  graph::Task task = measure::testing::matmulTask(4, 6, 5);
  const auto arguments = argumentSpecs(task, te::lowerTask(task));
  ASSERT_EQ(arguments.size(), 3u);
  EXPECT_FALSE(arguments[0].isOutput);
  EXPECT_EQ(arguments[0].shape, task.inputs[0].shape);
  EXPECT_EQ(arguments[1].shape, task.inputs[1].shape);
  EXPECT_TRUE(arguments[2].isOutput);
  EXPECT_EQ(arguments[2].shape, (graph::Shape{4, 6}));
  EXPECT_TRUE(arguments[0].fixedValues.empty());
}

TEST(SeededInputsTest, WeightsOfATaskAreMarkedForEviction) {
  graph::Task task = measure::testing::matmulTask(4, 6, 5);
  task.inputs[0].kind = graph::TaskInput::Kind::Activation;
  task.inputs[1].kind = graph::TaskInput::Kind::Weight;
  const auto arguments = argumentSpecs(task, te::lowerTask(task));
  ASSERT_EQ(arguments.size(), 3u);
  EXPECT_FALSE(arguments[0].isWeight);
  EXPECT_TRUE(arguments[1].isWeight);
  EXPECT_FALSE(arguments[2].isWeight);
}

} // namespace
