// Analyses behind the CPU code generator's vectorization, outlining and unrolling decisions.
#include "codegen/llvm/LoopAnalysis.h"

#include <gtest/gtest.h>

using namespace clustune;
using namespace clustune::te;
using namespace clustune::codegen;

namespace {
Expr v(const Var& var) {
  return varExpr(var);
}
Expr c(std::int64_t value) {
  return intImm(value);
}
} // namespace

TEST(LoopAnalysis, LinearCoefficientOfAffineAndIrregularIndices) {
  const Var i = makeVar("i"), j = makeVar("j"), n = makeVar("n");
  const VarNode* lane = j.get();
  EXPECT_EQ(linearCoefficient(v(i) * c(16) + v(j), lane), 1);
  EXPECT_EQ(linearCoefficient((v(i) * c(16) + v(j)) * c(2), lane), 2);
  EXPECT_EQ(linearCoefficient(c(3) * v(j) - v(j) + v(i), lane), 2);
  EXPECT_EQ(linearCoefficient(v(i) * c(7) + c(5), lane), 0);
  EXPECT_EQ(linearCoefficient(floorDiv(v(i), c(2)), lane), 0);
  EXPECT_EQ(linearCoefficient(cast(DataType::Int32, v(j) * c(3)), lane), 3);
  EXPECT_FALSE(linearCoefficient(v(j) * v(n), lane).has_value());
  EXPECT_FALSE(linearCoefficient(floorDiv(v(j), c(2)), lane).has_value());
  EXPECT_FALSE(linearCoefficient(v(j) * v(j), lane).has_value());
  const Buffer table = makeBuffer("T", DataType::Int64, 16, BufferScope::Argument);
  EXPECT_FALSE(linearCoefficient(bufferLoad(table, v(j)), lane).has_value());
  EXPECT_EQ(linearCoefficient(bufferLoad(table, v(i)), lane), 0);
}

TEST(LoopAnalysis, LaneCoefficientSeesThroughATilesRowsAndColumns) {
  // A fetch of 4 lanes: f = 4t + lane, row f // 8, column f % 8 of a tile 64 wide.
  const Var t = makeVar("t"), j = makeVar("j"), n = makeVar("n");
  const VarNode* lane = j.get();
  const Expr f = v(t) * c(4) + v(j);
  EXPECT_EQ(knownMultiple(f, lane, 4), 4);
  EXPECT_EQ(knownMultiple(floorMod(f, c(8)), lane, 4), 4);
  EXPECT_EQ(laneCoefficient(floorDiv(f, c(8)), lane, 4), 0);
  EXPECT_EQ(laneCoefficient(floorMod(f, c(8)), lane, 4), 1);
  EXPECT_EQ(laneCoefficient(floorDiv(f, c(8)) * c(64) + floorMod(f, c(8)), lane, 4), 1);
  EXPECT_EQ(laneCoefficient(v(n) * c(16) + v(j), lane, 4), 1);
  // Lanes that may cross a quotient: a divisor that is not a multiple of the width, a lane-0
  // value that is not a multiple of it, or an operand moving by more than one per lane.
  EXPECT_FALSE(laneCoefficient(floorMod(f, c(6)), lane, 4).has_value());
  EXPECT_FALSE(laneCoefficient(floorMod(v(t) * c(2) + v(j), c(8)), lane, 4).has_value());
  EXPECT_FALSE(laneCoefficient(floorMod(f + c(1), c(8)), lane, 4).has_value());
  EXPECT_FALSE(laneCoefficient(floorDiv(v(t) * c(8) + v(j) * c(2), c(8)), lane, 4).has_value());
  EXPECT_FALSE(laneCoefficient(floorMod(v(n) + v(j), c(8)), lane, 4).has_value());
  EXPECT_EQ(laneCoefficient(floorDiv(v(t), c(3)), lane, 4), 0);
}

TEST(LoopAnalysis, MayTrapMarksLoadsAndVariableDivisions) {
  const Var i = makeVar("i");
  const Buffer a = makeBuffer("A", DataType::Float32, 4, BufferScope::Argument);
  EXPECT_TRUE(mayTrap(bufferLoad(a, v(i)) + floatImm(1.0)));
  EXPECT_TRUE(mayTrap(floorDiv(c(10), v(i))));
  EXPECT_FALSE(mayTrap(floorDiv(v(i), c(4)) + floorMod(v(i), c(3))));
  EXPECT_FALSE(mayTrap(cast(DataType::Float32, v(i)) / floatImm(3.0))); // float: no trap
}

TEST(LoopAnalysis, LoadChoicesAreSelectsBetweenLoadsWithSafeIndicesAndConditions) {
  const Var i = makeVar("i"), n = makeVar("n");
  const Buffer a = makeBuffer("A", DataType::Float32, 4, BufferScope::Argument);
  const Buffer b = makeBuffer("B", DataType::Float32, 4, BufferScope::Argument);
  const Buffer m = makeBuffer("M", DataType::Float32, 8, BufferScope::Argument);
  const Expr concat = select(v(i) < c(4), bufferLoad(a, v(i)), bufferLoad(b, v(i) - c(4)));
  EXPECT_TRUE(isLoadChoice(bufferLoad(a, v(i))));
  EXPECT_TRUE(isLoadChoice(concat));
  EXPECT_TRUE(isLoadChoice(select(v(i) < c(2), bufferLoad(m, v(i)), concat)));
  // The outermost condition is evaluated in any case, so it may load (Where over tensors).
  EXPECT_TRUE(isLoadChoice(
      select(bufferLoad(m, v(i)) > floatImm(0.0), bufferLoad(a, v(i)), bufferLoad(b, v(i)))));
  // Padding chooses between a load and a constant: it keeps its branch.
  EXPECT_FALSE(isLoadChoice(select(v(i) < c(4), bufferLoad(a, v(i)), floatImm(0.0))));
  // An inner condition or an index that may fault would be evaluated where it is not chosen.
  EXPECT_FALSE(isLoadChoice(select(
      v(i) < c(2), bufferLoad(m, v(i)),
      select(bufferLoad(m, v(i)) > floatImm(0.0), bufferLoad(a, v(i)), bufferLoad(b, v(i))))));
  EXPECT_FALSE(
      isLoadChoice(select(v(i) < c(4), bufferLoad(a, floorDiv(v(i), v(n))), bufferLoad(b, v(i)))));
}

TEST(LoopAnalysis, StructuralEqualityComparesVariablesByIdentity) {
  const Var i = makeVar("i"), otherI = makeVar("i");
  EXPECT_TRUE(structurallyEqual(v(i) * c(4) + c(1), v(i) * c(4) + c(1)));
  EXPECT_FALSE(structurallyEqual(v(i) * c(4), v(otherI) * c(4)));
  EXPECT_FALSE(structurallyEqual(v(i) * c(4), v(i) * c(5)));
  EXPECT_FALSE(structurallyEqual(floatImm(1.0), floatImm(2.0)));
}

TEST(LoopAnalysis, VectorizationBlockers) {
  const Buffer a = makeBuffer("A", DataType::Float32, 64, BufferScope::Argument);
  const Buffer out = makeBuffer("C", DataType::Float32, 64, BufferScope::Argument);
  const Buffer local = makeBuffer("t", DataType::Float32, 4, BufferScope::Local);
  const Var j = makeVar("j"), k = makeVar("k");
  const auto loop = [&](Stmt body) { return makeFor(j, 16, ForKind::Vectorized, std::move(body)); };

  // Element-wise and an accumulation at the lane's own index are fine.
  EXPECT_EQ(vectorizationBlocker(*loop(makeStore(out, v(j), bufferLoad(a, v(j) * c(2))))), "");
  EXPECT_EQ(vectorizationBlocker(
                *loop(makeFor(k, 4, ForKind::Serial,
                              makeStore(out, v(j), bufferLoad(out, v(j)) + bufferLoad(a, v(k)))))),
            "");
  // A lane-invariant store that is not read back keeps the last lane's value: fine too.
  EXPECT_EQ(vectorizationBlocker(*loop(makeStore(out, c(0), bufferLoad(a, v(j))))), "");

  // A reduction over the lanes, different indices into one written buffer, nested loops that
  // need their own treatment.
  EXPECT_NE(vectorizationBlocker(
                *loop(makeStore(out, c(0), bufferLoad(out, c(0)) + bufferLoad(a, v(j))))),
            "");
  EXPECT_NE(vectorizationBlocker(*loop(makeSequence({makeStore(out, v(j), floatImm(0.0)),
                                                     makeStore(out, v(j) + c(1), floatImm(1.0))}))),
            "");
  EXPECT_NE(vectorizationBlocker(*loop(makeAllocate(local, makeStore(local, c(0), floatImm(0.0))))),
            "");
  EXPECT_NE(vectorizationBlocker(
                *loop(makeFor(k, 4, ForKind::Parallel, makeStore(out, v(k), floatImm(0.0))))),
            "");
  EXPECT_NE(vectorizationBlocker(
                *loop(makeFor(k, 4, ForKind::Vectorized, makeStore(out, v(k), floatImm(0.0))))),
            "");
}

TEST(LoopAnalysis, UnrollStepCountCountsStatementInstances) {
  const Buffer out = makeBuffer("C", DataType::Float32, 64, BufferScope::Argument);
  const Var i = makeVar("i"), j = makeVar("j"), k = makeVar("k");
  const Stmt store = makeStore(out, v(j), floatImm(0.0));
  EXPECT_EQ(unrollStepCount(store), 1);
  EXPECT_EQ(unrollStepCount(makeFor(i, 4, ForKind::Serial, makeFor(j, 8, ForKind::Serial, store))),
            32);
  // A vectorized loop counts once.
  EXPECT_EQ(
      unrollStepCount(makeFor(i, 4, ForKind::Serial, makeFor(j, 8, ForKind::Vectorized, store))),
      4);
  EXPECT_EQ(unrollStepCount(makeFor(k, 3, ForKind::Serial,
                                    makeSequence({store, makeFor(j, 5, ForKind::Serial, store)}))),
            18);
  EXPECT_EQ(unrollStepCount(makeFor(i, std::int64_t{1} << 40, ForKind::Serial,
                                    makeFor(j, std::int64_t{1} << 40, ForKind::Serial, store))),
            std::numeric_limits<std::int64_t>::max());
}

TEST(LoopAnalysis, UsedValuesInDeterministicOrder) {
  const Buffer a = makeBuffer("A", DataType::Float32, 64, BufferScope::Argument);
  const Buffer out = makeBuffer("C", DataType::Float32, 64, BufferScope::Argument);
  const Var i = makeVar("i"), j = makeVar("j"), n = makeVar("n");
  const Stmt body =
      makeFor(j, 8, ForKind::Serial,
              makeStore(out, v(i) * c(8) + v(j), bufferLoad(a, v(n)) + bufferLoad(a, v(j))));
  const UsedValues used = collectUsedValues(body);
  ASSERT_EQ(used.vars.size(), 3u);
  EXPECT_EQ(used.vars[0], j.get());
  EXPECT_EQ(used.vars[1], i.get());
  EXPECT_EQ(used.vars[2], n.get());
  ASSERT_EQ(used.buffers.size(), 2u);
  EXPECT_EQ(used.buffers[0], out);
  EXPECT_EQ(used.buffers[1], a);
}
