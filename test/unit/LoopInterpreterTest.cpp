// The loop-nest interpreter (lib/schedule/LoopInterpreter.h) on hand-built functions: loops and
// stores, float32 rounding after every operation, zeroed local allocations, lazy Select, and
// the errors for out-of-bounds accesses, integer division by zero and mismatched arguments.
#include "schedule/LoopInterpreter.h"

#include "support/Error.h"

#include <gtest/gtest.h>

using namespace clustune::schedule;
using namespace clustune::te;
using clustune::Error;

namespace {

Expr c(std::int64_t value) {
  return intImm(value);
}

TensorData filled(DataType dtype, std::int64_t elements, const std::vector<double>& values) {
  TensorData data(dtype, {elements});
  for (std::size_t e = 0; e < values.size(); ++e)
    data.set(static_cast<std::int64_t>(e), values[e]);
  return data;
}

std::vector<double> valuesOf(const TensorData& data) {
  std::vector<double> values;
  for (std::int64_t e = 0; e < data.elements(); ++e)
    values.push_back(data.get(e));
  return values;
}

std::string errorOf(const LoweredFunction& function, std::vector<TensorData*> arguments) {
  try {
    runLoweredFunction(function, std::move(arguments));
  } catch (const Error& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(LoopInterpreter, RunsLoopsOfEveryKindAndStores) {
  const Buffer in = makeBuffer("in", DataType::Float32, 6, BufferScope::Argument);
  const Buffer out = makeBuffer("out", DataType::Float32, 6, BufferScope::Argument);
  const Var i = makeVar("i"), j = makeVar("j");
  const Expr index = varExpr(i) * c(3) + varExpr(j);
  // out[i, j] = in[i, j] * 2 + i, over a parallel and a vectorized loop (run serially).
  const LoweredFunction function{
      .name = "f",
      .arguments = {in, out},
      .body = makeFor(i, 2, ForKind::Parallel,
                      makeFor(j, 3, ForKind::Vectorized,
                              makeStore(out, index,
                                        bufferLoad(in, index) * floatImm(2.0) +
                                            cast(DataType::Float32, varExpr(i)))))};
  TensorData input = filled(DataType::Float32, 6, {1, 2, 3, 4, 5, 6});
  TensorData output(DataType::Float32, {6});
  runLoweredFunction(function, {&input, &output});
  EXPECT_EQ(valuesOf(output), (std::vector<double>{2, 4, 6, 9, 11, 13}));
}

TEST(LoopInterpreter, Float32ArithmeticIsRoundedAfterEveryOperation) {
  const Buffer out = makeBuffer("out", DataType::Float32, 1, BufferScope::Argument);
  // In float32, 1e8 + 1 is 1e8; in double it would leave 1 after subtracting 1e8.
  const LoweredFunction function{
      .name = "f",
      .arguments = {out},
      .body = makeStore(out, c(0), floatImm(1e8) + floatImm(1.0) - floatImm(1e8))};
  TensorData output(DataType::Float32, {1});
  runLoweredFunction(function, {&output});
  EXPECT_EQ(output.get(0), 0.0);
}

TEST(LoopInterpreter, LocalAllocationsStartAtZero) {
  const Buffer in = makeBuffer("in", DataType::Float32, 4, BufferScope::Argument);
  const Buffer out = makeBuffer("out", DataType::Float32, 2, BufferScope::Argument);
  const Buffer sum = makeBuffer("sum", DataType::Float32, 1, BufferScope::Local);
  const Var row = makeVar("row"), k = makeVar("k");
  // Per row: a fresh accumulator, summed over two inputs, then copied out.
  const Stmt perRow = makeAllocate(
      sum, makeSequence({makeFor(k, 2, ForKind::Serial,
                                 makeStore(sum, c(0),
                                           bufferLoad(sum, c(0)) +
                                               bufferLoad(in, varExpr(row) * c(2) + varExpr(k)))),
                         makeStore(out, varExpr(row), bufferLoad(sum, c(0)))}));
  const LoweredFunction function{
      .name = "f", .arguments = {in, out}, .body = makeFor(row, 2, ForKind::Serial, perRow)};
  TensorData input = filled(DataType::Float32, 4, {1, 2, 30, 40});
  TensorData output(DataType::Float32, {2});
  runLoweredFunction(function, {&input, &output});
  EXPECT_EQ(valuesOf(output), (std::vector<double>{3, 70}));
}

TEST(LoopInterpreter, SelectEvaluatesOnlyTheChosenOperand) {
  const Buffer in = makeBuffer("in", DataType::Float32, 2, BufferScope::Argument);
  const Buffer out = makeBuffer("out", DataType::Float32, 4, BufferScope::Argument);
  const Var i = makeVar("i");
  const Expr at = varExpr(i);
  // A padded read: in[i - 1] only for i in [1, 3).
  const LoweredFunction function{
      .name = "f",
      .arguments = {in, out},
      .body = makeFor(
          i, 4, ForKind::Serial,
          makeStore(out, at,
                    select(at >= c(1) && at < c(3), bufferLoad(in, at - c(1)), floatImm(0.0))))};
  TensorData input = filled(DataType::Float32, 2, {5, 7});
  TensorData output(DataType::Float32, {4});
  runLoweredFunction(function, {&input, &output});
  EXPECT_EQ(valuesOf(output), (std::vector<double>{0, 5, 7, 0}));
}

TEST(LoopInterpreter, IntegerArithmeticFollowsTheDtype) {
  const Buffer out = makeBuffer("out", DataType::Int64, 4, BufferScope::Argument);
  const LoweredFunction function{
      .name = "f",
      .arguments = {out},
      .body =
          makeSequence({makeStore(out, c(0), floorDiv(c(-7), c(2)) + c(0)),
                        makeStore(out, c(1), binary(ExprKind::Div, intImm(-7) + intImm(0), c(2))),
                        makeStore(out, c(2), floorMod(c(-7), c(2))),
                        makeStore(out, c(3), cast(DataType::Int64, floatImm(-2.7)))})};
  TensorData output(DataType::Int64, {4});
  runLoweredFunction(function, {&output});
  EXPECT_EQ(valuesOf(output), (std::vector<double>{-4, -3, 1, -2}));
}

TEST(LoopInterpreter, BadAccessesAndArgumentsAreErrors) {
  const Buffer in = makeBuffer("in", DataType::Float32, 4, BufferScope::Argument);
  const Buffer out = makeBuffer("out", DataType::Float32, 4, BufferScope::Argument);
  const Var i = makeVar("i");
  auto loop = [&](Expr storeIndex, Expr loadIndex) {
    return LoweredFunction{.name = "f",
                           .arguments = {in, out},
                           .body = makeFor(i, 4, ForKind::Serial,
                                           makeStore(out, std::move(storeIndex),
                                                     bufferLoad(in, std::move(loadIndex))))};
  };
  TensorData input(DataType::Float32, {4}), output(DataType::Float32, {4});
  EXPECT_EQ(errorOf(loop(varExpr(i), varExpr(i) + c(1)), {&input, &output}),
            "loop interpreter: buffer 'in': index 4 is out of bounds [0, 4)");
  EXPECT_EQ(errorOf(loop(varExpr(i) - c(1), varExpr(i)), {&input, &output}),
            "loop interpreter: buffer 'out': index -1 is out of bounds [0, 4)");
  const Var n = makeVar("n");
  EXPECT_EQ(errorOf(loop(varExpr(i), floorDiv(varExpr(i), varExpr(i))), {&input, &output}),
            "loop interpreter: integer division by zero in (i // i)");
  EXPECT_EQ(errorOf(loop(varExpr(i), varExpr(n)), {&input, &output}),
            "loop interpreter: variable 'n' is not bound");
  EXPECT_EQ(errorOf(loop(varExpr(i), varExpr(i)), {&input}),
            "function 'f' takes 2 arguments, got 1");
  TensorData wrongSize(DataType::Float32, {5}), wrongType(DataType::Int64, {4});
  EXPECT_EQ(errorOf(loop(varExpr(i), varExpr(i)), {&input, &wrongSize}),
            "function 'f': argument 1 ('out') must be float32[4], got float32[5]");
  EXPECT_EQ(errorOf(loop(varExpr(i), varExpr(i)), {&wrongType, &output}),
            "function 'f': argument 0 ('in') must be float32[4], got int64[4]");
  // A local buffer read after its allocation ended.
  const Buffer local = makeBuffer("tmp", DataType::Float32, 1, BufferScope::Local);
  const LoweredFunction escaped{
      .name = "f",
      .arguments = {out},
      .body = makeSequence({makeAllocate(local, makeStore(local, c(0), floatImm(1.0))),
                            makeStore(out, c(0), bufferLoad(local, c(0)))})};
  EXPECT_EQ(errorOf(escaped, {&output}),
            "loop interpreter: buffer 'tmp' is used outside its allocation");
}

} // namespace

// out[t] = s[(t + 1) % 8] after every thread t of a block wrote s[t] = t + 1: right only if
// each thread waits at the barrier until the others have written.
LoweredFunction rotateThroughSharedMemory(const Buffer& out, bool wrap = true) {
  const Buffer shared = makeBuffer("s", DataType::Float32, 8, BufferScope::Shared);
  const Var b = makeVar("b"), t = makeVar("t");
  const Expr thread = varExpr(t);
  const Expr neighbour = wrap ? floorMod(thread + c(1), c(8)) : thread + c(1);
  return LoweredFunction{
      .name = "f",
      .arguments = {out},
      .body = makeFor(
          b, 2, ForKind::BlockIdxX,
          makeFor(
              t, 8, ForKind::ThreadIdxX,
              makeAllocate(shared, makeSequence({makeStore(shared, thread,
                                                           cast(DataType::Float32, thread + c(1))),
                                                 makeBarrier(),
                                                 makeStore(out, varExpr(b) * c(8) + thread,
                                                           bufferLoad(shared, neighbour))}))))};
}

TEST(LoopInterpreter, ABlocksThreadsRunTogetherAndMeetAtItsBarriers) {
  const Buffer out = makeBuffer("out", DataType::Float32, 16, BufferScope::Argument);
  TensorData output(DataType::Float32, {16});
  runLoweredFunction(rotateThroughSharedMemory(out), {&output});
  std::vector<double> expected;
  for (int block = 0; block < 2; ++block)
    for (int thread = 0; thread < 8; ++thread)
      expected.push_back((thread + 1) % 8 + 1);
  EXPECT_EQ(valuesOf(output), expected);
}

TEST(LoopInterpreter, AThreadsErrorReachesTheCallerWithoutHangingTheOthers) {
  const Buffer out = makeBuffer("out", DataType::Float32, 16, BufferScope::Argument);
  TensorData output(DataType::Float32, {16});
  // Thread 7 reads s[8], past the end, after the barrier; the others go on and finish.
  const std::string error = errorOf(rotateThroughSharedMemory(out, /*wrap=*/false), {&output});
  EXPECT_NE(error.find("out of bounds"), std::string::npos) << error;
}
