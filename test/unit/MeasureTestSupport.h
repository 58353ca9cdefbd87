// Shared by the lib/measure tests: real tasks built by hand (a matmul and an element-wise
// chain, lowered by te::lowerTask like any partitioned task), kernels written directly as loop
// nests that fault, never finish or compute the wrong thing, and quick Runner settings. The
// worker is the real clustune-worker, found beside the test binary in the build's bin/.
#pragma once

#include "codegen/cpu/CpuCodegen.h"
#include "codegen/cpu/CpuTarget.h"
#include "graph/Task.h"
#include "measure/Runner.h"
#include "measure/SeededInputs.h"
#include "schedule/DefaultSchedule.h"
#include "te/LowerTask.h"
#include "te/Stmt.h"

#include <string>
#include <vector>

namespace clustune::measure::testing {

inline const codegen::CpuTarget& host() {
  static const codegen::CpuTarget target = [] {
    codegen::CpuTarget detected = codegen::hostCpuTarget();
    detected.cores = 2; // the test machines have two cores, shared with other builds
    return detected;
  }();
  return target;
}

inline graph::TaskNode taskNode(const std::string& op, std::vector<graph::TaskValueRef> inputs,
                                graph::Shape shape, graph::PatternKind pattern) {
  return graph::TaskNode{.op = op,
                         .attributes = {},
                         .inputs = std::move(inputs),
                         .outputShapes = {std::move(shape)},
                         .outputTypes = {graph::DataType::Float32},
                         .pattern = pattern};
}

// Y = MatMul(A[m, k], B[k, n]).
inline graph::Task matmulTask(std::int64_t m, std::int64_t n, std::int64_t k) {
  graph::Task task;
  task.inputs = {{.shape = {m, k}}, {.shape = {k, n}, .kind = graph::TaskInput::Kind::Weight}};
  task.nodes = {taskNode("MatMul", {graph::TaskValueRef::input(0), graph::TaskValueRef::input(1)},
                         {m, n}, graph::PatternKind::OutEWiseFusable)};
  task.outputs = {graph::TaskValueRef::node(0, 0)};
  task.weights = {{"test", 1}};
  graph::canonicalizeTask(task);
  return task;
}

// Y = Relu(A + B), all [rows, cols].
inline graph::Task addReluTask(std::int64_t rows, std::int64_t cols) {
  graph::Task task;
  task.inputs = {{.shape = {rows, cols}}, {.shape = {rows, cols}}};
  task.nodes = {taskNode("Add", {graph::TaskValueRef::input(0), graph::TaskValueRef::input(1)},
                         {rows, cols}, graph::PatternKind::ElemWise),
                taskNode("Relu", {graph::TaskValueRef::node(0, 0)}, {rows, cols},
                         graph::PatternKind::ElemWise)};
  task.outputs = {graph::TaskValueRef::node(1, 0)};
  task.weights = {{"test", 1}};
  graph::canonicalizeTask(task);
  return task;
}

// Y = op(X), one element-wise node: with Erf, Exp or Tanh the kernel calls into the C library.
inline graph::Task unaryTask(const std::string& op, graph::Shape shape) {
  graph::Task task;
  task.inputs = {{.shape = shape}};
  task.nodes = {taskNode(op, {graph::TaskValueRef::input(0)}, shape, graph::PatternKind::ElemWise)};
  task.outputs = {graph::TaskValueRef::node(0, 0)};
  task.weights = {{"test", 1}};
  graph::canonicalizeTask(task);
  return task;
}

inline std::vector<schedule::Step> defaultSteps(const graph::Task& task) {
  return schedule::defaultSchedule(te::lowerTask(task),
                                   {.cores = host().cores, .vectorLanes = host().vectorBits / 32});
}

// Short timing so that the tests stay fast; two threads for the kernels.
inline RunnerOptions quickRunnerOptions(double timeoutSeconds = 10) {
  return RunnerOptions{.timeoutSeconds = timeoutSeconds,
                       .timing = {.number = 1, .repeat = 2, .minRepeatMs = 1},
                       .seed = 11,
                       .threads = 2};
}

inline te::Buffer argumentBuffer(const std::string& name, std::int64_t elements) {
  return te::makeBuffer(name, graph::DataType::Float32, elements, te::BufferScope::Argument);
}

// One float32 output buffer `out` of `elements`, as the kernels below take.
inline std::vector<ArgumentSpec> singleOutput(std::int64_t elements) {
  return {{.name = "out", .shape = {elements}, .isOutput = true}};
}

// out[1 << 40] = 1: a store four terabytes past its buffer, which faults.
inline te::LoweredFunction outOfBoundsStore() {
  const te::Buffer out = argumentBuffer("out", 16);
  return {.name = "out_of_bounds",
          .arguments = {out},
          .body = te::makeStore(out, te::intImm(std::int64_t{1} << 40), te::floatImm(1.0))};
}

// 1e9 × 1e9 iterations of out[0] = out[0] + 1: floating-point addition is not reassociated, so
// the compiler cannot fold the loops away, and the kernel runs for centuries.
inline te::LoweredFunction endlessLoop() {
  const te::Buffer out = argumentBuffer("out", 16);
  const te::Var outer = te::makeVar("i"), inner = te::makeVar("j");
  const te::Stmt increment = te::makeStore(
      out, te::intImm(0),
      te::binary(te::ExprKind::Add, te::bufferLoad(out, te::intImm(0)), te::floatImm(1.0)));
  return {.name = "endless",
          .arguments = {out},
          .body = te::makeFor(outer, 1'000'000'000, te::ForKind::Serial,
                              te::makeFor(inner, 1'000'000'000, te::ForKind::Serial, increment))};
}

// out[i] = i for every element: quick, and its result is known.
inline te::LoweredFunction iota(std::int64_t elements) {
  const te::Buffer out = argumentBuffer("out", elements);
  const te::Var i = te::makeVar("i");
  return {.name = "iota",
          .arguments = {out},
          .body = te::makeFor(i, elements, te::ForKind::Serial,
                              te::makeStore(out, te::varExpr(i),
                                            te::cast(graph::DataType::Float32, te::varExpr(i))))};
}

// The element-wise Y = max(A + B + offset, 0) over `elements`, with the task's argument order:
// offset 0 is addReluTask's computation, any other offset is a wrong result.
inline te::LoweredFunction handWrittenAddRelu(std::int64_t elements, double offset) {
  const te::Buffer a = argumentBuffer("A", elements), b = argumentBuffer("B", elements),
                   y = argumentBuffer("Y", elements);
  const te::Var i = te::makeVar("i");
  const te::Expr index = te::varExpr(i);
  const te::Expr sum = te::bufferLoad(a, index) + te::bufferLoad(b, index) + te::floatImm(offset);
  return {.name = "add_relu",
          .arguments = {a, b, y},
          .body = te::makeFor(i, elements, te::ForKind::Serial,
                              te::makeStore(y, index, te::maximum(sum, te::floatImm(0.0))))};
}

} // namespace clustune::measure::testing
