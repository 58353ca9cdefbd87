// Bound inference (lib/schedule/BoundInference.h): constant bounds of index expressions over
// loop ranges, and the per-iteration regions of compute_at, checked against hand-computed
// windows: affine reads, the hull of several reads, divisions by constants, the fallback to
// constant bounds for non-affine indices, and clamping to the tensor.
#include "schedule/BoundInference.h"

#include "te/Tensor.h"

#include <gtest/gtest.h>

using namespace clustune::schedule;
using namespace clustune::te;

namespace {

struct Loops {
  Var i = makeVar("i"), j = makeVar("j"), h = makeVar("h"), r = makeVar("r");
  Expr I = varExpr(i), J = varExpr(j), H = varExpr(h), R = varExpr(r);
};

Expr c(std::int64_t value) {
  return intImm(value);
}

std::string bounds(const Expr& expr, const VarExtents& extents) {
  auto interval = constantBounds(expr, extents);
  if (!interval)
    return "none";
  return "[" + std::to_string(interval->min) + ", " + std::to_string(interval->max) + "]";
}

// "min:extent" per dimension.
std::string region(const std::vector<std::vector<Expr>>& accesses, const Shape& shape,
                   const VarExtents& fixed, const VarExtents& relaxed) {
  std::string text;
  for (const DimRange& range : inferRegion(accesses, shape, fixed, relaxed))
    text += (text.empty() ? "" : " ") + toString(range.min) + ":" + std::to_string(range.extent);
  return text;
}

TEST(BoundInference, ConstantBoundsFollowIntervalArithmetic) {
  Loops l;
  const VarExtents extents{{l.i.get(), 8}, {l.j.get(), 4}};
  EXPECT_EQ(bounds(l.I * c(4) + l.J, extents), "[0, 31]");
  EXPECT_EQ(bounds(l.I - l.J, extents), "[-3, 7]");
  EXPECT_EQ(bounds(l.J * c(-2) + c(5), extents), "[-1, 5]");
  EXPECT_EQ(bounds(floorDiv(l.I * c(4) + l.J, c(8)), extents), "[0, 3]");
  EXPECT_EQ(bounds(floorMod(l.I * c(4) + l.J, c(8)), extents), "[0, 7]");
  // The whole range lies within one period: exact.
  EXPECT_EQ(bounds(floorMod(l.J + c(8), c(8)), extents), "[0, 3]");
  EXPECT_EQ(bounds(minimum(l.I, l.J + c(2)), extents), "[0, 5]");
  EXPECT_EQ(bounds(select(l.I < l.J, l.I, c(20)), extents), "[0, 20]");
  EXPECT_EQ(bounds(l.I * l.J, extents), "[0, 21]");
  // An unknown variable, a float or a division by a range containing 0 has no bounds.
  EXPECT_EQ(bounds(l.I + l.H, extents), "none");
  EXPECT_EQ(bounds(floatImm(1.0), extents), "none");
  EXPECT_EQ(bounds(floorDiv(l.I, l.J), extents), "none");
}

TEST(BoundInference, AnAffineReadGivesAWindowAtTheFixedLoopsValue) {
  Loops l;
  // pad[h + r] read with h fixed (the attach loop) and r in [0, 3): 3 rows from h.
  EXPECT_EQ(region({{l.H + l.R}}, {7}, {{l.h.get(), 5}}, {{l.r.get(), 3}}), "h:3");
  // Reversed: 4 - r for r in [0, 3) covers 2..4.
  EXPECT_EQ(region({{c(4) - l.R}}, {7}, {}, {{l.r.get(), 3}}), "2:3");
  // Two dimensions at once, one of them entirely fixed.
  EXPECT_EQ(region({{l.H, l.H * c(2) + l.R}}, {5, 12}, {{l.h.get(), 5}}, {{l.r.get(), 2}}),
            "h:1 (h * 2):2");
}

TEST(BoundInference, SeveralReadsGiveTheirHull) {
  Loops l;
  // C[i] and C[i + 2]: the three values i..i+2.
  EXPECT_EQ(region({{l.I}, {l.I + c(2)}}, {12}, {{l.i.get(), 10}}, {}), "i:3");
  // Offsets that are not constant fall back to constant bounds of both.
  EXPECT_EQ(region({{l.I}, {l.J}}, {12}, {{l.i.get(), 10}, {l.j.get(), 4}}, {}), "0:10");
}

TEST(BoundInference, DivisionsByConstantsStayExactWhenAligned) {
  Loops l;
  const VarExtents fixed{{l.i.get(), 4}};
  const VarExtents relaxed{{l.j.get(), 8}};
  // (i*8 + j) // 4: two values from 2i.
  EXPECT_EQ(region({{floorDiv(l.I * c(8) + l.J, c(4))}}, {8}, fixed, relaxed), "(i * 2):2");
  // (i*8 + j) % 16 for j in [0, 8): 8 consecutive values, but i*8 is not a multiple of 16.
  EXPECT_EQ(region({{floorMod(l.I * c(8) + l.J, c(16))}}, {16}, fixed, relaxed), "0:16");
  // (i*8 + j) % 8 is j.
  EXPECT_EQ(region({{floorMod(l.I * c(8) + l.J, c(8))}}, {16}, fixed, relaxed), "0:8");
  // (i*3 + j) // 4: the start is not aligned; one more value than the aligned case allows.
  EXPECT_EQ(region({{floorDiv(l.I * c(3) + l.J, c(4))}}, {8}, fixed, relaxed), "((i * 3) // 4):3");
  // A fused loop fixed at the attach point: its parts are single values.
  EXPECT_EQ(region({{floorDiv(l.I, c(2)), floorMod(l.I, c(2))}}, {2, 2}, fixed, {}),
            "(i // 2):1 (i % 2):1");
}

TEST(BoundInference, NonAffineReadsFallBackToConstantBoundsAndAreClampedToTheTensor) {
  Loops l;
  // min() is not affine: the constant bounds over every loop's range, [0, 4].
  EXPECT_EQ(region({{minimum(l.H + l.R, c(4))}}, {10}, {{l.h.get(), 5}}, {{l.r.get(), 3}}), "0:5");
  // r - 1 for r in [0, 3) reaches -1 (a padded read that a guard skips): clamped to [0, 1].
  EXPECT_EQ(region({{l.R - c(1)}}, {5}, {}, {{l.r.get(), 3}}), "0:2");
  // A window as large as the tensor is the whole tensor.
  EXPECT_EQ(region({{l.H + l.R}}, {3}, {{l.h.get(), 5}}, {{l.r.get(), 3}}), "0:3");
  // A data-dependent index (a gather) needs the whole dimension.
  const Tensor indices = placeholder("idx", {4}, DataType::Int64);
  EXPECT_EQ(region({{load(indices, {l.R})}}, {9}, {}, {{l.r.get(), 4}}), "0:9");
}

} // namespace
