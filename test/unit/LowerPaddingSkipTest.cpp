// Lowering skips the products with padding (lib/schedule/PaddingSkip.h): the conditions found
// in a padded convolution's term, where their guard goes in the loop nest (around whole rows of
// taps, never inside the inner reduce level, never around a handful of statements), and that a
// guarded nest computes the reference values, interpreted and compiled, with the padding stage
// computed at the root, per tile, or inlined.
#include "CompiledScheduleTestSupport.h"
#include "ScheduleTestSupport.h"
#include "schedule/PaddingSkip.h"

#include <gtest/gtest.h>

using namespace clustune::schedule;
using namespace clustune::schedule::testing;
namespace te = clustune::te;

namespace {

constexpr std::int64_t kChannels = 3, kFilters = 2, kHeight = 6, kWidth = 20;

// conv's loops n, k, rc, rh, h, rw, w: the rows of taps (h + rh) are decided inside h, outside
// the inner tile over rw and w.
const std::vector<Step> kRowsOutside = {ReorderStep{.stage = 1, .order = {0, 1, 4, 5, 2, 6, 3}}};

std::string lowered(const TestWorkload& test, const State& state) {
  return te::toString(lower(test.workload, state, "f"));
}

TEST(PaddingSkip, AProductWithAPaddedLoadHasThePaddingConditionsAsConjuncts) {
  const TestWorkload test = paddedConvolution(kChannels, kFilters, kHeight, kWidth);
  const te::Expr term = test.workload.outputs[0]->body->operands[0];
  // inside = 1 <= h + rh < 7 and 1 <= w + rw < 21: four conjuncts in the conv's indices.
  EXPECT_EQ(paddingConditions(term).size(), 4u);
  EXPECT_TRUE(paddingConditions(term + term).empty())
      << "a sum is zero only when both terms are: no conjunct expresses that";
}

TEST(PaddingSkip, TheRowGuardWrapsTheInnerTileInsideTheRowLoop) {
  const TestWorkload test = paddedConvolution(kChannels, kFilters, kHeight, kWidth);
  const State state = replay(test.workload, kRowsOutside);
  const std::string text = lowered(test, state);
  EXPECT_TRUE(
      containsInOrder(text, {"for rh in 0..3:", "for conv.i2 in 0..6:", "if (((conv.i2 + rh) >= 1)",
                             "for rw in 0..3:", "for conv.i3 in 0..20:"}))
      << text;
  // The column conditions would guard single statements of the inner tile: left out.
  EXPECT_EQ(text.find("conv.i3 + rw) >= 1"), std::string::npos) << text;
  EXPECT_TRUE(matchesReference(test, state));
  EXPECT_TRUE(compiledMatchesInterpreter(test.workload, state, "rows_outside",
                                         {1, kFilters, kHeight, kWidth}, 3));
}

TEST(PaddingSkip, NoGuardInsideTheInnerReduceLevel) {
  const TestWorkload test = paddedConvolution(kChannels, kFilters, kHeight, kWidth);
  // n, k, rc, h, rh, w, rw: h + rh is decided inside rh, the reduce loop inside a spatial one.
  const State state =
      replay(test.workload, {ReorderStep{.stage = 1, .order = {0, 1, 4, 2, 5, 3, 6}}});
  const std::string text = lowered(test, state);
  EXPECT_EQ(text.find("if "), std::string::npos) << text;
  EXPECT_TRUE(matchesReference(test, state));
}

TEST(PaddingSkip, NoGuardAroundAFewStatements) {
  const TestWorkload test = paddedConvolution(kChannels, kFilters, kHeight, 4);
  // The row guard would cover rw x w = 12 statements.
  const State state = replay(test.workload, kRowsOutside);
  EXPECT_EQ(lowered(test, state).find("if "), std::string::npos) << lowered(test, state);
}

TEST(PaddingSkip, GuardedNestsComputeTheReferenceWhereverThePaddingIsComputed) {
  const TestWorkload test = paddedConvolution(kChannels, kFilters, kHeight, kWidth);
  // The padding at the root, per row of the output, per row of taps, and inlined as a select.
  const std::vector<std::vector<Step>> placements = {
      {},
      {ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = 2}},
      {ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = 5}},
      {ComputeInlineStep{.stage = 0}}};
  for (std::size_t i = 0; i < placements.size(); ++i) {
    std::vector<Step> steps = kRowsOutside;
    steps.insert(steps.end(), placements[i].begin(), placements[i].end());
    const State state = replay(test.workload, steps);
    const std::string text = lowered(test, state);
    EXPECT_NE(text.find("if (((conv.i2 + rh) >= 1)"), std::string::npos)
        << "placement " << i << "\n"
        << text;
    EXPECT_TRUE(matchesReference(test, state)) << "placement " << i;
    EXPECT_TRUE(compiledMatchesInterpreter(test.workload, state, "placement",
                                           {1, kFilters, kHeight, kWidth}, 5 + i))
        << "placement " << i;
  }
}

} // namespace
