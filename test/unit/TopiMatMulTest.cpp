// The Gemm and MatMul lowerings (te/topi/MatMul.cpp): one-node tasks are lowered with lowerTask,
// evaluated with the reference interpreter and compared with matrix products written here with
// plain loops, on random inputs.
#include "support/Error.h"
#include "support/Random.h"
#include "te/Interpreter.h"
#include "te/LowerTask.h"

#include <algorithm>
#include <cmath>
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
    task.inputs.push_back({.shape = *shape});
  }
  task.nodes.push_back(std::move(node));
  task.outputs.push_back(graph::TaskValueRef::node(0, 0));
  return task;
}

struct GemmCase {
  std::int64_t m, n, k;
  bool transA = false, transB = false;
  double alpha = 1.0, beta = 1.0;
  std::optional<Shape> c = std::nullopt; // broadcast to [m, n]
};

graph::Task gemmTask(const GemmCase& g) {
  const Shape a = g.transA ? Shape{g.k, g.m} : Shape{g.m, g.k};
  const Shape b = g.transB ? Shape{g.n, g.k} : Shape{g.k, g.n};
  std::vector<std::optional<Shape>> operands = {a, b};
  if (g.c)
    operands.push_back(g.c);
  return oneNodeTask("Gemm",
                     {{"alpha", g.alpha},
                      {"beta", g.beta},
                      {"transA", std::int64_t{g.transA}},
                      {"transB", std::int64_t{g.transB}}},
                     operands, {g.m, g.n});
}

// alpha * op(A) op(B) + beta * C, with C indexed by numpy broadcasting.
void checkGemm(const GemmCase& g, std::uint64_t seed) {
  const graph::Task task = gemmTask(g);
  Rng rng(seed);
  std::vector<std::vector<float>> inputs;
  for (const graph::TaskInput& input : task.inputs)
    inputs.push_back(randomValues(rng, input.shape));
  const std::vector<float>& a = inputs[0];
  const std::vector<float>& b = inputs[1];
  std::vector<double> expected;
  for (std::int64_t row = 0; row < g.m; ++row)
    for (std::int64_t column = 0; column < g.n; ++column) {
      double sum = 0.0;
      for (std::int64_t i = 0; i < g.k; ++i)
        sum += static_cast<double>(g.transA ? a[i * g.m + row] : a[row * g.k + i]) *
               (g.transB ? b[column * g.k + i] : b[i * g.n + column]);
      double value = g.alpha * sum;
      if (g.c) {
        const Shape& c = *g.c;
        // Right-aligned: a rank-1 C is a row; a dimension of 1 repeats.
        const std::int64_t cRow = c.size() == 2 && c[0] != 1 ? row : 0;
        const std::int64_t cColumn = !c.empty() && c.back() != 1 ? column : 0;
        const std::int64_t cColumns = c.empty() ? 1 : c.back();
        value += g.beta * inputs[2][cRow * cColumns + cColumn];
      }
      expected.push_back(value);
    }
  expectClose(evaluateLowered(task, inputs), expected);
}

TEST(TopiMatMul, GemmAllTransposeCombinationsWithRowBroadcastC) {
  std::uint64_t seed = 1;
  for (bool transA : {false, true})
    for (bool transB : {false, true}) {
      SCOPED_TRACE(testing::Message() << "transA " << transA << " transB " << transB);
      checkGemm({.m = 5,
                 .n = 7,
                 .k = 6,
                 .transA = transA,
                 .transB = transB,
                 .alpha = 0.5,
                 .beta = 2.0,
                 .c = Shape{7}},
                seed++);
    }
}

TEST(TopiMatMul, GemmColumnScalarAndFullC) {
  checkGemm({.m = 4, .n = 3, .k = 5, .beta = -1.5, .c = Shape{4, 1}}, 5);
  checkGemm({.m = 4, .n = 3, .k = 5, .transB = true, .c = Shape{}}, 6);
  checkGemm({.m = 4, .n = 3, .k = 5, .transA = true, .alpha = 3.0, .c = Shape{4, 3}}, 7);
  checkGemm({.m = 2, .n = 6, .k = 1, .c = Shape{1, 6}}, 8);
}

TEST(TopiMatMul, PlainGemmIsOneReductionStage) {
  const GemmCase g = {.m = 3, .n = 4, .k = 5, .transB = true};
  checkGemm(g, 9);
  const te::Workload workload = te::lowerTask(gemmTask(g));
  ASSERT_EQ(workload.stages.size(), 1u);
  EXPECT_TRUE(workload.stages[0]->isReduction());
}

TEST(TopiMatMul, GemmWithZeroBetaIgnoresC) {
  const GemmCase g = {.m = 3, .n = 4, .k = 5, .alpha = 2.0, .beta = 0.0, .c = Shape{3, 4}};
  const te::Workload workload = te::lowerTask(gemmTask(g));
  ASSERT_EQ(workload.stages.size(), 2u);
  EXPECT_EQ(te::producersOf(workload.stages[1]).size(), 1u); // the product only, not C
  checkGemm(g, 10);
}

TEST(TopiMatMul, RejectsGemmWithMismatchedInnerDimensions) {
  graph::Task task = gemmTask({.m = 3, .n = 4, .k = 5});
  task.inputs[1].shape = {6, 4};
  EXPECT_THROW(te::lowerTask(task), Error);
}

// numpy matmul on row-major data: 1-D operands are promoted (a row on the left, a column on the
// right) and batch dimensions broadcast.
std::vector<double> numpyMatMul(const Shape& aShape, const std::vector<float>& a,
                                const Shape& bShape, const std::vector<float>& b,
                                const Shape& outShape) {
  Shape aMatrix = aShape.size() == 1 ? Shape{1, aShape[0]} : aShape;
  Shape bMatrix = bShape.size() == 1 ? Shape{bShape[0], 1} : bShape;
  const std::int64_t m = aMatrix[aMatrix.size() - 2], k = aMatrix.back(), n = bMatrix.back();
  const std::size_t batchRank = std::max(aMatrix.size(), bMatrix.size()) - 2;
  // Left-pad both batch shapes with 1s to the common rank.
  Shape aBatch(batchRank - (aMatrix.size() - 2), 1), bBatch(batchRank - (bMatrix.size() - 2), 1);
  aBatch.insert(aBatch.end(), aMatrix.begin(), aMatrix.end() - 2);
  bBatch.insert(bBatch.end(), bMatrix.begin(), bMatrix.end() - 2);
  std::int64_t batches = 1;
  Shape batch(batchRank);
  for (std::size_t axis = 0; axis < batchRank; ++axis)
    batches *= batch[axis] = std::max(aBatch[axis], bBatch[axis]);
  std::vector<double> out;
  for (std::int64_t flat = 0; flat < batches; ++flat) {
    std::int64_t aOffset = 0, bOffset = 0, rest = flat;
    std::vector<std::int64_t> index(batchRank);
    for (std::size_t axis = batchRank; axis-- > 0;) {
      index[axis] = rest % batch[axis];
      rest /= batch[axis];
    }
    for (std::size_t axis = 0; axis < batchRank; ++axis) {
      aOffset = aOffset * aBatch[axis] + (aBatch[axis] == 1 ? 0 : index[axis]);
      bOffset = bOffset * bBatch[axis] + (bBatch[axis] == 1 ? 0 : index[axis]);
    }
    for (std::int64_t row = 0; row < m; ++row)
      for (std::int64_t column = 0; column < n; ++column) {
        double sum = 0.0;
        for (std::int64_t i = 0; i < k; ++i)
          sum += static_cast<double>(a[(aOffset * m + row) * k + i]) *
                 b[(bOffset * k + i) * n + column];
        out.push_back(sum);
      }
  }
  EXPECT_EQ(static_cast<std::int64_t>(out.size()), graph::elementCount(outShape));
  return out;
}

void checkMatMul(const Shape& a, const Shape& b, const Shape& out, std::uint64_t seed) {
  SCOPED_TRACE("[" + graph::shapeToString(a) + "] x [" + graph::shapeToString(b) + "]");
  Rng rng(seed);
  const std::vector<std::vector<float>> inputs = {randomValues(rng, a), randomValues(rng, b)};
  expectClose(evaluateLowered(oneNodeTask("MatMul", {}, {a, b}, out), inputs),
              numpyMatMul(a, inputs[0], b, inputs[1], out));
}

TEST(TopiMatMul, MatMulOfMatrices) {
  checkMatMul({3, 4}, {4, 5}, {3, 5}, 11);
}

TEST(TopiMatMul, MatMulBroadcastsBatchDimensions) {
  checkMatMul({2, 1, 3, 4}, {3, 4, 5}, {2, 3, 3, 5}, 12);
  checkMatMul({4, 2, 3}, {3, 6}, {4, 2, 6}, 13);
  checkMatMul({2, 3}, {5, 3, 2}, {5, 2, 2}, 14);
}

TEST(TopiMatMul, MatMulPromotesOneDimensionalOperands) {
  checkMatMul({4}, {2, 4, 5}, {2, 5}, 15);
  checkMatMul({2, 3, 4}, {4}, {2, 3}, 16);
  checkMatMul({6}, {6}, {}, 17);
  checkMatMul({3, 1}, {1, 2}, {3, 2}, 18); // K = 1: an outer product
}

TEST(TopiMatMul, RejectsMatMulWithIncompatibleBatchDimensions) {
  EXPECT_THROW(
      te::lowerTask(oneNodeTask("MatMul", {}, {Shape{2, 3, 4}, Shape{3, 4, 5}}, {2, 3, 5})), Error);
}

// Einsum: the contractions exporters emit, against the numpy reference or hand values.
std::vector<float> runEinsum(const std::string& equation, const std::vector<Shape>& shapes,
                             const std::vector<std::vector<float>>& inputs, const Shape& out) {
  std::vector<std::optional<Shape>> operands(shapes.begin(), shapes.end());
  return evaluateLowered(oneNodeTask("Einsum", {{"equation", equation}}, operands, out), inputs);
}

TEST(TopiMatMul, EinsumBatchedAndPlainMatMul) {
  Rng rng(21);
  const Shape a{5, 2, 3}, b{5, 3, 4};
  const std::vector<std::vector<float>> inputs = {randomValues(rng, a), randomValues(rng, b)};
  expectClose(runEinsum("bij, bjk -> bik", {a, b}, inputs, {5, 2, 4}),
              numpyMatMul(a, inputs[0], b, inputs[1], {5, 2, 4}));
  const Shape m{3, 4}, n{4, 2};
  const std::vector<std::vector<float>> matrices = {randomValues(rng, m), randomValues(rng, n)};
  // Implicit output: the letters used once, alphabetically.
  expectClose(runEinsum("ij,jk", {m, n}, matrices, {3, 2}),
              numpyMatMul(m, matrices[0], n, matrices[1], {3, 2}));
}

TEST(TopiMatMul, EinsumTransposeSumInnerProductAndDiagonal) {
  const std::vector<float> x{0, 1, 2, 3, 4, 5}; // [2, 3]
  expectClose(runEinsum("ij->ji", {{2, 3}}, {x}, {3, 2}), {0, 3, 1, 4, 2, 5});
  expectClose(runEinsum("ij->i", {{2, 3}}, {x}, {2}), {3, 12});
  expectClose(runEinsum("i,i", {{3}, {3}}, {{1, 2, 3}, {4, 5, 6}}, {}), {32});
  // A batch of 2x2 diagonals through an ellipsis.
  expectClose(runEinsum("...ii ->...i", {{2, 2, 2}}, {{1, 2, 3, 4, 5, 6, 7, 8}}, {2, 2}),
              {1, 4, 5, 8});
  // Transposed operands, as exporters write attention scores: q k^T.
  expectClose(runEinsum("bhqd,bhkd->bhqk", {{1, 1, 2, 2}, {1, 1, 2, 2}},
                        {{1, 2, 3, 4}, {1, 0, 0, 1}}, {1, 1, 2, 2}),
              {1, 2, 3, 4});
}

TEST(TopiMatMul, EinsumRejectsMalformedEquations) {
  auto error = [](const std::string& equation, const std::vector<std::optional<Shape>>& shapes,
                  const Shape& out) {
    try {
      te::lowerTask(oneNodeTask("Einsum", {{"equation", equation}}, shapes, out));
    } catch (const Error& caught) {
      return std::string(caught.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error("ij,jk->ik", {Shape{2, 3}, Shape{4, 5}}, {2, 5}).find("extents 3 and 4"),
            std::string::npos);
  EXPECT_NE(error("ij->k", {Shape{2, 3}}, {2}).find("in no operand"), std::string::npos);
  EXPECT_NE(error("ijk->i", {Shape{2, 3}}, {2}).find("does not fit operand 0"), std::string::npos);
  EXPECT_NE(error("ij->i", {Shape{2, 3}}, {3}).find("the task records"), std::string::npos);
}

} // namespace
