// Index motion (features/BufferAccess.h, analyzeIndex): strides and ranges of affine indices,
// of floordiv/floormod indices at the points the definition names, of a Select whose untaken
// branch divides by zero at some points, and opaque indices (a load, a float, a division by a
// loop-dependent zero). All points are evaluated in one walk; these pin what each point means.
#include "features/BufferAccess.h"

#include <gtest/gtest.h>

using namespace clustune;
using namespace clustune::features;

namespace {

te::Expr at(const te::Var& var) {
  return te::varExpr(var);
}

std::vector<EnclosingLoop> loopsOf(std::vector<std::pair<te::Var, std::int64_t>> loops) {
  std::vector<EnclosingLoop> result;
  for (const auto& [var, extent] : loops)
    result.push_back({var.get(), extent, te::ForKind::Serial});
  return result;
}

} // namespace

TEST(FeaturesIndexMotion, AffineIndexGivesCoefficientsAndRanges) {
  const te::Var i = te::makeVar("i"), j = te::makeVar("j");
  const IndexMotion motion =
      analyzeIndex(at(i) * te::intImm(16) + at(j) + te::intImm(5), loopsOf({{i, 4}, {j, 16}}));
  ASSERT_FALSE(motion.opaque);
  EXPECT_EQ(motion.base, 5);
  EXPECT_EQ(motion.stride, (std::vector<std::int64_t>{16, 1}));
  EXPECT_EQ(motion.range, (std::vector<std::int64_t>{48, 15}));
}

TEST(FeaturesIndexMotion, DivisionsAreEvaluatedAtFirstSecondAndLastIteration) {
  // f // 4 over f in [0, 10): 0 at f = 0 and 1, 2 at f = 9. f mod 4: 0, 1 and 1.
  const te::Var f = te::makeVar("f"), g = te::makeVar("g");
  const auto loops = loopsOf({{f, 10}, {g, 1}});
  const IndexMotion quotient = analyzeIndex(te::floorDiv(at(f), te::intImm(4)), loops);
  EXPECT_EQ(quotient.stride, (std::vector<std::int64_t>{0, 0}));
  EXPECT_EQ(quotient.range, (std::vector<std::int64_t>{2, 0}));
  const IndexMotion remainder = analyzeIndex(te::floorMod(at(f), te::intImm(4)), loops);
  EXPECT_EQ(remainder.stride, (std::vector<std::int64_t>{1, 0}));
  EXPECT_EQ(remainder.range, (std::vector<std::int64_t>{1, 0}));
  // A loop of extent 1 never moves the index: its stride is 0 whatever index(v = 1) is.
  const IndexMotion withUnitLoop = analyzeIndex(at(g) * te::intImm(7) + at(f), loops);
  EXPECT_EQ(withUnitLoop.stride, (std::vector<std::int64_t>{1, 0}));
}

TEST(FeaturesIndexMotion, ASelectTakesEachPointFromItsBranch) {
  // select(i < 1, 100, 1000 // i): the untaken branch divides by zero at i = 0, which must not
  // make the index opaque. Points: i = 0 gives 100, i = 1 gives 1000, i = 3 gives 333.
  const te::Var i = te::makeVar("i");
  const te::Expr index =
      te::select(at(i) < te::intImm(1), te::intImm(100), te::floorDiv(te::intImm(1000), at(i)));
  const IndexMotion motion = analyzeIndex(index, loopsOf({{i, 4}}));
  ASSERT_FALSE(motion.opaque);
  EXPECT_EQ(motion.base, 100);
  EXPECT_EQ(motion.stride, (std::vector<std::int64_t>{900}));
  EXPECT_EQ(motion.range, (std::vector<std::int64_t>{233}));
}

TEST(FeaturesIndexMotion, UndefinedAtAnyPointIsOpaque) {
  const te::Var i = te::makeVar("i"), j = te::makeVar("j");
  const auto loops = loopsOf({{i, 4}, {j, 3}});
  // Defined at i = 0 (and at j's points) but not at i = 1: 10 // (1 - i).
  const IndexMotion division =
      analyzeIndex(te::floorDiv(te::intImm(10), te::intImm(1) - at(i)), loops);
  EXPECT_TRUE(division.opaque);
  EXPECT_EQ(division.stride, (std::vector<std::int64_t>{0, 0}));
  const te::Buffer table =
      te::makeBuffer("table", te::DataType::Int64, 8, te::BufferScope::Argument);
  EXPECT_TRUE(analyzeIndex(te::bufferLoad(table, at(j)) + at(i), loops).opaque);
  EXPECT_TRUE(
      analyzeIndex(te::cast(te::DataType::Int64, te::cast(te::DataType::Float32, at(i))), loops)
          .opaque);
}
