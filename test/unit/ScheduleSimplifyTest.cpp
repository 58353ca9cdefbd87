// The loop-nest simplifier (lib/schedule/Simplify.h) on hand-built expressions and statements:
// affine regrouping, divisions by constants with known remainders, recombination of fused
// loops, comparisons decided by loop ranges, guard removal, floats left untouched, loop ranges
// scoped to their loops, shared subexpressions rewritten once, and the affine forms that a
// rewrite remembers instead of decomposing its operands again.
#include "schedule/Affine.h"
#include "schedule/ExprUtil.h"
#include "schedule/Simplify.h"

#include <gtest/gtest.h>

using namespace clustune::schedule;
using namespace clustune::te;

namespace {

Expr c(std::int64_t value) {
  return intImm(value);
}

bool sameForm(const AffineForm& left, const AffineForm& right) {
  if (left.constant != right.constant || left.terms.size() != right.terms.size())
    return false;
  for (std::size_t i = 0; i < left.terms.size(); ++i)
    if (left.terms[i].coefficient != right.terms[i].coefficient ||
        !structurallyEqual(left.terms[i].atom, right.terms[i].atom))
      return false;
  return true;
}

struct Loops {
  Var a = makeVar("a"), b = makeVar("b"), f = makeVar("f");
  Expr A = varExpr(a), B = varExpr(b), F = varExpr(f);
};

TEST(ScheduleSimplify, AffineTermsAreRegroupedAndCancel) {
  Loops l;
  EXPECT_EQ(toString(simplify((l.A * c(4) + l.B) * c(16) - l.A * c(64), {})), "(b * 16)");
  EXPECT_EQ(toString(simplify(l.B - l.A + c(3) - c(5), {})), "((b - a) - 2)");
  EXPECT_EQ(toString(simplify(l.A * c(2) + l.A * c(3) + c(0), {})), "(a * 5)");
}

TEST(ScheduleSimplify, DivisionsSplitOffMultiplesOfTheDivisor) {
  Loops l;
  const VarExtents small{{l.a.get(), 10}, {l.b.get(), 4}};
  const VarExtents wide{{l.a.get(), 10}, {l.b.get(), 8}};
  EXPECT_EQ(toString(simplify(floorDiv(l.A * c(4), c(4)), {})), "a");
  EXPECT_EQ(toString(simplify(floorDiv(l.A * c(4) + l.B, c(4)), small)), "a");
  EXPECT_EQ(toString(simplify(floorMod(l.A * c(4) + l.B, c(4)), small)), "b");
  EXPECT_EQ(toString(simplify(floorDiv(l.A * c(4) + l.B + c(4), c(4)), small)), "(a + 1)");
  // b may reach 7: the division keeps the remainder's part.
  EXPECT_EQ(toString(simplify(floorDiv(l.A * c(4) + l.B, c(4)), wide)), "(a + (b // 4))");
  EXPECT_EQ(toString(simplify(floorMod(l.A * c(4) + l.B, c(4)), wide)), "(b % 4)");
  // Without bounds nothing is known about b.
  EXPECT_EQ(toString(simplify(floorDiv(l.A * c(4) + l.B, c(4)), {})), "(a + (b // 4))");
  EXPECT_EQ(toString(simplify(floorDiv(floorDiv(l.A, c(4)), c(2)), {})), "(a // 8)");
}

TEST(ScheduleSimplify, AFusedLoopDividedIntoPartsAndFlattenedAgainIsContiguous) {
  Loops l;
  // f fuses (x, y) with y of extent 5, and the row-major index of [x, y] has strides 30, 6.
  EXPECT_EQ(toString(simplify(floorDiv(l.F, c(5)) * c(30) + floorMod(l.F, c(5)) * c(6), {})),
            "(f * 6)");
  // Three parts (extents ., 3, 4) flattened with strides 12w, 4w, w (w = 7).
  const Expr index = floorDiv(l.F, c(12)) * c(84) + floorMod(floorDiv(l.F, c(4)), c(3)) * c(28) +
                     floorMod(l.F, c(4)) * c(7);
  EXPECT_EQ(toString(simplify(index, {})), "(f * 7)");
  // Different coefficients do not recombine.
  EXPECT_EQ(toString(simplify(floorDiv(l.F, c(5)) * c(10) + floorMod(l.F, c(5)), {})),
            "(((f // 5) * 10) + (f % 5))");
}

TEST(ScheduleSimplify, LoopRangesDecideComparisons) {
  Loops l;
  const VarExtents extents{{l.a.get(), 8}, {l.b.get(), 4}};
  EXPECT_EQ(toString(simplify(l.A + c(1) < c(9), extents)), "1");
  EXPECT_EQ(toString(simplify(l.A >= c(8), extents)), "0");
  EXPECT_EQ(toString(simplify(l.A < c(4), extents)), "(a < 4)");
  EXPECT_EQ(toString(simplify(l.A * c(4) + l.B < c(32) && l.A < c(4), extents)), "(a < 4)");
  EXPECT_EQ(toString(simplify(l.A == l.A + c(0), {})), "1");
  EXPECT_EQ(toString(simplify(minimum(l.B, l.A + c(4)), extents)), "b");
}

TEST(ScheduleSimplify, FloatingPointArithmeticIsLeftAlone) {
  const Buffer x = makeBuffer("x", DataType::Float32, 4, BufferScope::Argument);
  Loops l;
  const VarExtents extents{{l.a.get(), 4}};
  const Expr value = (bufferLoad(x, l.A) + floatImm(0.0)) * floatImm(1.0);
  EXPECT_EQ(toString(simplify(value, extents)), "((x[a] + 0f) * 1f)");
}

TEST(ScheduleSimplify, GuardsProvenByTheLoopRangesDisappear) {
  const Buffer out = makeBuffer("out", DataType::Float32, 12, BufferScope::Argument);
  Loops l;
  // for a in 0..3, b in 0..4: the guard a*4 + b < 12 always holds; b < 3 does not.
  const Stmt always =
      makeFor(l.a, 3, ForKind::Serial,
              makeFor(l.b, 4, ForKind::Vectorized,
                      makeIfThenElse(l.A * c(4) + l.B < c(12),
                                     makeStore(out, l.A * c(4) + l.B, floatImm(1.0)))));
  EXPECT_EQ(toString(simplify(always)), "for a in 0..3:\n"
                                        "  for b in 0..4 vectorized:\n"
                                        "    out[((a * 4) + b)] = 1f\n");
  const Stmt sometimes = makeFor(l.b, 4, ForKind::Serial,
                                 makeIfThenElse(l.B < c(3), makeStore(out, l.B, floatImm(1.0)),
                                                makeStore(out, l.B, floatImm(2.0))));
  EXPECT_EQ(toString(simplify(sometimes)), toString(sometimes));
  // Never true: the else branch, or nothing at all.
  const Stmt never = makeFor(l.b, 4, ForKind::Serial,
                             makeIfThenElse(l.B > c(5), makeStore(out, l.B, floatImm(1.0)),
                                            makeStore(out, l.B, floatImm(2.0))));
  EXPECT_EQ(toString(simplify(never)), "for b in 0..4:\n  out[b] = 2f\n");
  const Stmt dead = makeFor(l.b, 4, ForKind::Serial,
                            makeIfThenElse(l.B > c(5), makeStore(out, l.B, floatImm(1.0))));
  EXPECT_EQ(toString(simplify(dead)), "");
}

TEST(ScheduleSimplify, TheVariableOfALoopOfExtentOneIsZero) {
  const Buffer out = makeBuffer("out", DataType::Float32, 12, BufferScope::Argument);
  Loops l;
  const Stmt loop =
      makeFor(l.a, 1, ForKind::Serial,
              makeFor(l.b, 4, ForKind::Serial, makeStore(out, l.A * c(4) + l.B, floatImm(1.0))));
  EXPECT_EQ(toString(simplify(loop)), "for a in 0..1:\n  for b in 0..4:\n    out[b] = 1f\n");
}

TEST(ScheduleSimplify, ALoopsRangeHoldsOnlyInsideIt) {
  // The inner loop rebinds b with extent 4; after it, b is the outer loop's again, of extent 1,
  // so only the second store's index becomes 0.
  const Buffer out = makeBuffer("out", DataType::Float32, 12, BufferScope::Argument);
  Loops l;
  const Stmt loops =
      makeFor(l.b, 1, ForKind::Serial,
              makeSequence({makeFor(l.b, 4, ForKind::Serial, makeStore(out, l.B, floatImm(1.0))),
                            makeStore(out, l.B + c(8), floatImm(2.0))}));
  EXPECT_EQ(toString(simplify(loops)), "for b in 0..1:\n"
                                       "  for b in 0..4:\n"
                                       "    out[b] = 1f\n"
                                       "  out[8] = 2f\n");
}

TEST(ScheduleRewrite, ASharedSubexpressionIsRewrittenOnce) {
  Loops l;
  const Expr shared = l.A * c(3) + l.B;
  const Expr dag = (shared * shared) + shared;
  int sharedVisits = 0;
  const Expr rewritten = rewriteBottomUp(dag, [&](const Expr& node) {
    if (node->kind == ExprKind::Add && node->operands[1].get() == l.B.get())
      ++sharedVisits;
    return node;
  });
  EXPECT_EQ(sharedVisits, 1);
  EXPECT_EQ(rewritten.get(), dag.get()); // nothing changed, so nothing was rebuilt
  // A rewrite reaches every use of the shared node.
  const Expr substituted = substitute(dag, {{l.b.get(), c(1)}});
  EXPECT_EQ(toString(substituted), "((((a * 3) + 1) * ((a * 3) + 1)) + ((a * 3) + 1))");
}

TEST(ScheduleAffine, RebuildsAsMatchesExactlyWhatFromAffineBuilds) {
  Loops l;
  const Expr divided = floorDiv(l.F, c(5));
  // Leading negative terms, magnitudes above 1, constants of both signs, no constant.
  const std::vector<Expr> sources = {
      l.A,
      l.A * c(4) + l.B,
      l.B - l.A * c(3) + c(7),
      c(0) - l.A - l.B * c(2) - c(5),
      divided * c(30) + l.A - c(1),
      c(9),
  };
  for (const Expr& source : sources) {
    const AffineForm form = toAffine(source);
    const Expr built = fromAffine(form);
    EXPECT_TRUE(rebuildsAs(built, form)) << toString(built);
    // Another constant or coefficient is another tree: fromAffine itself is the oracle.
    for (const AffineForm& other : {form + constantForm(1), form.scaled(2), form.scaled(-1)})
      EXPECT_EQ(rebuildsAs(built, other), structurallyEqual(fromAffine(other), built))
          << toString(built);
    EXPECT_FALSE(rebuildsAs(built, form + constantForm(1))) << toString(built);
    // Another dtype may only say "no" where fromAffine's types would unify to the same tree:
    // a "no" costs a rebuild, a wrong "yes" would keep a tree of another type.
    const auto int32 = clustune::graph::DataType::Int32;
    EXPECT_TRUE(!rebuildsAs(built, form, int32) ||
                structurallyEqual(fromAffine(form, int32), built))
        << toString(built);
  }
  EXPECT_FALSE(rebuildsAs(l.B + l.A, toAffine(l.A + l.B)));
  EXPECT_FALSE(rebuildsAs(l.A + l.A, toAffine(l.A + l.A)));
}

TEST(ScheduleAffine, InRebuiltOrderIsTheFormOfTheRebuiltExpression) {
  Loops l;
  for (const Expr& source : {l.B - l.A * c(3) + c(7), c(0) - l.A - l.B * c(2) - c(5),
                             l.A * c(4) + l.B, floorDiv(l.F, c(5)) * c(30) - l.A * c(2)}) {
    const AffineForm form = toAffine(source);
    EXPECT_TRUE(sameForm(toAffine(fromAffine(form)), inRebuiltOrder(form))) << toString(source);
  }
}

TEST(ScheduleAffine, RememberedFormsStandInForDecomposingAgain) {
  Loops l;
  const Expr inner = l.A * c(4) + l.B - c(2);
  RecentForms recent;
  recent.remember(inner, toAffine(inner));
  for (const Expr& parent : {inner * c(3) + l.F, l.F - inner, (inner + c(2)) * c(16)}) {
    EXPECT_TRUE(sameForm(toAffine(parent, &recent), toAffine(parent))) << toString(parent);
  }
  // A remembered form is what is used: the cache is consulted, not bypassed.
  RecentForms wrong;
  wrong.remember(inner, constantForm(5));
  EXPECT_TRUE(sameForm(toAffine(inner + l.F, &wrong), toAffine(c(5) + l.F)));
  // Only the last few are kept.
  for (int i = 0; i < 8; ++i)
    recent.remember(l.A + c(i + 1), toAffine(l.A + c(i + 1)));
  EXPECT_EQ(recent.find(inner.get()), nullptr);
}

TEST(ScheduleSimplify, AnIndexAlreadyInSimplestFormIsKeptNotRebuilt) {
  Loops l;
  const Expr index = l.A * c(64) + l.B * c(4) + c(3);
  EXPECT_EQ(simplify(index, {}).get(), index.get());
  const Expr regrouped = l.A * c(64) + c(3) + l.B * c(4);
  EXPECT_NE(simplify(regrouped, {}).get(), regrouped.get());
  EXPECT_EQ(toString(simplify(regrouped, {})), toString(index));
  // So are divisions whose dividend holds no multiple of the divisor, and what contains them.
  const Expr divided = floorDiv(l.A * c(3) + l.B, c(4)) * c(8) + floorMod(l.F, c(7));
  EXPECT_EQ(simplify(divided, {}).get(), divided.get());
}

} // namespace
