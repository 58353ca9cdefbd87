// Helpers shared by the tests that check compute-heavy lowerings (TopiConvolutionTest,
// TopiMatMulTest, TopiPoolingTest) against plain-loop references: row-major indexing, random
// float inputs, evaluation of a lowered task, and a float32-aware comparison.
#pragma once

#include "support/Random.h"
#include "te/Interpreter.h"
#include "te/LowerTask.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <gtest/gtest.h>

namespace clustune::topi_test {

using Ints = std::vector<std::int64_t>;

inline std::int64_t offsetOf(const graph::Shape& shape, const Ints& index) {
  std::int64_t offset = 0;
  for (std::size_t axis = 0; axis < shape.size(); ++axis)
    offset = offset * shape[axis] + index[axis];
  return offset;
}

// Calls `visit` with every multi-index of `shape`, in row-major order.
inline void forEachIndex(const graph::Shape& shape, const std::function<void(const Ints&)>& visit) {
  if (graph::elementCount(shape) == 0)
    return;
  Ints index(shape.size(), 0);
  while (true) {
    visit(index);
    std::size_t axis = shape.size();
    while (axis > 0 && ++index[axis - 1] == shape[axis - 1])
      index[--axis] = 0;
    if (axis == 0)
      return;
  }
}

inline std::vector<float> randomValues(Rng& rng, const graph::Shape& shape, double low = -1.0,
                                       double high = 1.0) {
  std::vector<float> values(static_cast<std::size_t>(graph::elementCount(shape)));
  for (float& value : values)
    value = static_cast<float>(rng.uniform(low, high));
  return values;
}

// Lowers the task, evaluates it on `inputs` (one per task input) and returns its one output.
inline std::vector<float> evaluateLowered(const graph::Task& task,
                                          const std::vector<std::vector<float>>& inputs) {
  const te::Workload workload = te::lowerTask(task);
  std::vector<te::TensorData> data;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    data.emplace_back(graph::DataType::Float32, task.inputs[i].shape);
    for (std::size_t element = 0; element < inputs[i].size(); ++element)
      data.back().set(static_cast<std::int64_t>(element), inputs[i][element]);
  }
  const std::vector<te::TensorData> outputs = te::evaluateWorkload(workload, data);
  EXPECT_EQ(outputs.size(), 1u);
  std::vector<float> values(static_cast<std::size_t>(outputs.at(0).elements()));
  for (std::size_t element = 0; element < values.size(); ++element)
    values[element] = static_cast<float>(outputs[0].get(static_cast<std::int64_t>(element)));
  return values;
}

// Relative tolerance 1e-5, on a scale of at least 1 so that results near zero (where float
// accumulation order dominates) are compared absolutely.
inline void expectClose(const std::vector<float>& actual, const std::vector<double>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i)
    ASSERT_NEAR(actual[i], expected[i], 1e-5 * std::max(1.0, std::abs(expected[i])))
        << "at element " << i;
}

} // namespace clustune::topi_test
