// Tasks and checks shared by the tests of lib/search: small matmul, convolution and
// element-wise tasks built by hand, and a check that a schedule computes what the te reference
// interpreter computes.
#pragma once

#include "ScheduleTestSupport.h"
#include "graph/Task.h"
#include "schedule/State.h"
#include "search/Mutation.h"
#include "te/Interpreter.h"
#include "te/LowerTask.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace clustune::search::testing {

using schedule::testing::allClose;
using schedule::testing::randomInputs;
using schedule::testing::runState;

inline graph::TaskNode node(const std::string& op, std::vector<graph::TaskValueRef> inputs,
                            graph::Shape shape, graph::PatternKind pattern,
                            graph::Attributes attributes = {}) {
  return graph::TaskNode{.op = op,
                         .attributes = std::move(attributes),
                         .inputs = std::move(inputs),
                         .outputShapes = {std::move(shape)},
                         .outputTypes = {graph::DataType::Float32},
                         .pattern = pattern};
}

inline graph::TaskValueRef input(int index) {
  return graph::TaskValueRef::input(index);
}

inline graph::TaskValueRef nodeOutput(int index) {
  return graph::TaskValueRef::node(index, 0);
}

inline graph::Task finish(graph::Task task) {
  graph::canonicalizeTask(task);
  return task;
}

// Y = MatMul(A[m, k], B[k, n]).
inline graph::Task matmulTask(std::int64_t m, std::int64_t n, std::int64_t k) {
  graph::Task task;
  task.inputs = {{.shape = {m, k}}, {.shape = {k, n}, .kind = graph::TaskInput::Kind::Weight}};
  task.nodes = {node("MatMul", {input(0), input(1)}, {m, n}, graph::PatternKind::OutEWiseFusable)};
  task.outputs = {nodeOutput(0)};
  return finish(task);
}

// Y = MatMul(MatMul(A, B), C): the first product is a non-output reduction whose consumer is
// another reduction, so it may move to the consumer's loops.
inline graph::Task matmulChainTask(std::int64_t m, std::int64_t n, std::int64_t k) {
  graph::Task task;
  task.inputs = {{.shape = {m, k}},
                 {.shape = {k, n}, .kind = graph::TaskInput::Kind::Weight},
                 {.shape = {n, n}, .kind = graph::TaskInput::Kind::Weight}};
  task.nodes = {
      node("MatMul", {input(0), input(1)}, {m, n}, graph::PatternKind::OutEWiseFusable),
      node("MatMul", {nodeOutput(0), input(2)}, {m, n}, graph::PatternKind::OutEWiseFusable)};
  task.outputs = {nodeOutput(1)};
  return finish(task);
}

// Y = Relu(Conv(X[1, 4, 10, 10], W[8, 4, 3, 3], bias[8]), pads 1): stages pad, conv, bias, relu.
inline graph::Task convBiasReluTask() {
  using Ints = std::vector<std::int64_t>;
  graph::Task task;
  task.inputs = {{.shape = {1, 4, 10, 10}},
                 {.shape = {8, 4, 3, 3}, .kind = graph::TaskInput::Kind::Weight},
                 {.shape = {8}, .kind = graph::TaskInput::Kind::Weight}};
  const graph::Attributes attributes = {{"kernel_shape", Ints{3, 3}},
                                        {"strides", Ints{1, 1}},
                                        {"dilations", Ints{1, 1}},
                                        {"pads", Ints{1, 1, 1, 1}},
                                        {"group", std::int64_t{1}}};
  task.nodes = {node("Conv", {input(0), input(1), input(2)}, {1, 8, 10, 10},
                     graph::PatternKind::OutEWiseFusable, attributes),
                node("Relu", {nodeOutput(0)}, {1, 8, 10, 10}, graph::PatternKind::ElemWise)};
  task.outputs = {nodeOutput(1)};
  return finish(task);
}

// Relu(Conv 1x1, stride 1, no padding) of [1, 8, 6, 7] into 4 channels.
inline graph::Task conv1x1Task() {
  using Ints = std::vector<std::int64_t>;
  graph::Task task;
  task.inputs = {{.shape = {1, 8, 6, 7}},
                 {.shape = {4, 8, 1, 1}, .kind = graph::TaskInput::Kind::Weight}};
  const graph::Attributes attributes = {{"kernel_shape", Ints{1, 1}},
                                        {"strides", Ints{1, 1}},
                                        {"dilations", Ints{1, 1}},
                                        {"pads", Ints{0, 0, 0, 0}},
                                        {"group", std::int64_t{1}}};
  task.nodes = {node("Conv", {input(0), input(1)}, {1, 4, 6, 7},
                     graph::PatternKind::OutEWiseFusable, attributes),
                node("Relu", {nodeOutput(0)}, {1, 4, 6, 7}, graph::PatternKind::ElemWise)};
  task.outputs = {nodeOutput(1)};
  return finish(task);
}

// Y = Relu(A + B) over [4, 6, 240] by default: 240 has 16 vector lengths from 2 to 64.
inline graph::Task addReluTask(const graph::Shape& shape = {4, 6, 240}) {
  graph::Task task;
  task.inputs = {{.shape = shape}, {.shape = shape}};
  task.nodes = {node("Add", {input(0), input(1)}, shape, graph::PatternKind::ElemWise),
                node("Relu", {nodeOutput(0)}, shape, graph::PatternKind::ElemWise)};
  task.outputs = {nodeOutput(1)};
  return finish(task);
}

inline std::string json(const Steps& steps) {
  return schedule::toJson(steps).dump();
}

inline ::testing::AssertionResult matchesReference(const te::Workload& workload,
                                                   const Steps& steps) {
  const std::vector<te::TensorData> inputs = randomInputs(workload, 11);
  const std::vector<te::TensorData> expected = te::evaluateWorkload(workload, inputs);
  const std::vector<te::TensorData> actual =
      runState(workload, schedule::replay(workload, steps), inputs);
  for (std::size_t k = 0; k < expected.size(); ++k)
    if (auto result = allClose(actual[k], expected[k], 1e-4); !result)
      return result << " (output " << k << ") of " << json(steps);
  return ::testing::AssertionSuccess();
}

} // namespace clustune::search::testing
