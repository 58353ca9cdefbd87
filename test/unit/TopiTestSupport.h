// Helpers shared by the operator-lowering tests (TopiElementwiseTest, TopiLayoutTest,
// TopiReductionTest): small tensors from literal values, one-node tasks, and running a task
// through lowerTask and the reference interpreter.
#pragma once

#include "graph/Task.h"
#include "support/Error.h"
#include "te/Interpreter.h"
#include "te/LowerTask.h"

#include <gtest/gtest.h>
#include <numeric>

namespace clustune::topi_test {

using graph::DataType;
using graph::Shape;
using te::TensorData;

inline TensorData tensorOf(Shape shape, const std::vector<double>& values,
                           DataType dtype = DataType::Float32) {
  TensorData data(dtype, std::move(shape));
  EXPECT_EQ(data.elements(), static_cast<std::int64_t>(values.size()));
  for (std::size_t i = 0; i < values.size(); ++i)
    data.set(static_cast<std::int64_t>(i), values[i]);
  return data;
}

// 0, 1, 2, ... in row-major order.
inline TensorData iota(Shape shape, DataType dtype = DataType::Float32) {
  std::vector<double> values(static_cast<std::size_t>(graph::elementCount(shape)));
  std::iota(values.begin(), values.end(), 0.0);
  return tensorOf(std::move(shape), values, dtype);
}

inline std::vector<double> valuesOf(const TensorData& data) {
  std::vector<double> values;
  for (std::int64_t i = 0; i < data.elements(); ++i)
    values.push_back(data.get(i));
  return values;
}

struct OutputSpec {
  Shape shape;
  DataType dtype = DataType::Float32;
};

// A task of one node that reads every input in order and writes all of its outputs.
inline graph::Task oneNodeTask(const std::string& op, graph::Attributes attributes,
                               const std::vector<TensorData>& inputs,
                               std::vector<OutputSpec> outputs) {
  graph::Task task;
  graph::TaskNode node;
  node.op = op;
  node.attributes = std::move(attributes);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    task.inputs.push_back({.shape = inputs[i].shape(), .dtype = inputs[i].dtype()});
    node.inputs.push_back(graph::TaskValueRef::input(static_cast<int>(i)));
  }
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    node.outputShapes.push_back(outputs[k].shape);
    node.outputTypes.push_back(outputs[k].dtype);
    task.outputs.push_back(graph::TaskValueRef::node(0, static_cast<int>(k)));
  }
  task.nodes.push_back(std::move(node));
  return task;
}

// The same with outputs of the first input's dtype.
inline graph::Task oneNodeTaskOfShapes(const std::string& op, graph::Attributes attributes,
                                       const std::vector<TensorData>& inputs,
                                       const std::vector<Shape>& outputs) {
  std::vector<OutputSpec> specs;
  for (const Shape& shape : outputs)
    specs.push_back({shape, inputs.at(0).dtype()});
  return oneNodeTask(op, std::move(attributes), inputs, std::move(specs));
}

inline std::vector<TensorData> run(const graph::Task& task, const std::vector<TensorData>& inputs) {
  return te::evaluateWorkload(te::lowerTask(task), inputs);
}

inline void expectNear(const TensorData& actual, const std::vector<double>& expected,
                       double tolerance = 1e-6) {
  ASSERT_EQ(actual.elements(), static_cast<std::int64_t>(expected.size()));
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(actual.get(static_cast<std::int64_t>(i)), expected[i], tolerance)
        << "element " << i;
}

// The message lowering the task fails with, or "no error".
inline std::string errorOf(const graph::Task& task) {
  try {
    te::lowerTask(task);
  } catch (const Error& error) {
    return error.what();
  }
  return "no error";
}

} // namespace clustune::topi_test
