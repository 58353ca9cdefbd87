// The rfactor step (lib/schedule/Rfactor.cpp, State.cpp): its JSON form, the partial and final
// stages it creates and their numbering, the reasons it is refused, and that reductions
// factored over split, fused and non-divisible reduce loops (a dense layer with few rows, a
// full sum, softmax's max and sum, a padded convolution) compute what the te reference
// interpreter computes.
#include "CompiledScheduleTestSupport.h"
#include "CpuCodegenTestSupport.h"
#include "ScheduleTestSupport.h"
#include "schedule/Lower.h"
#include "schedule/State.h"
#include "support/Error.h"
#include "te/Interpreter.h"

#include <gtest/gtest.h>

using namespace clustune::schedule;
using namespace clustune::schedule::testing;
using clustune::Error;
namespace te = clustune::te;

namespace {

::testing::AssertionResult matchesInterpreter(const Workload& workload, const State& state) {
  const std::vector<TensorData> inputs = randomInputs(workload, 13);
  const std::vector<TensorData> expected = te::evaluateWorkload(workload, inputs);
  const std::vector<TensorData> actual = runState(workload, state, inputs);
  for (std::size_t k = 0; k < expected.size(); ++k)
    if (auto result = allClose(actual[k], expected[k], 1e-5); !result)
      return result << " (output " << k << ")\n" << te::toString(lower(workload, state, "f"));
  return ::testing::AssertionSuccess();
}

std::vector<std::string> loopNames(const Stage& stage) {
  std::vector<std::string> names;
  for (std::size_t position = 0; position < stage.loops.size(); ++position)
    names.push_back(stage.loop(position).name);
  return names;
}

TEST(ScheduleRfactor, JsonRoundTripAndFixedFieldOrder) {
  const Step step = RfactorStep{.stage = 1, .iterator = 3, .factorIteratorPosition = 2};
  const std::string text = toJson(step).dump();
  EXPECT_EQ(text, R"({"step":"rfactor","stage":1,"iterator":3,"factor_iterator_position":2})");
  EXPECT_EQ(stepFromJson(nlohmann::json::parse(text)), step);
  EXPECT_EQ(toString(step), "rfactor(stage 1, iterator 3, factor position 2)");
}

TEST(ScheduleRfactor, MalformedJsonIsRejected) {
  EXPECT_EQ(stepJsonError(R"({"step":"rfactor","stage":0,"iterator":2})"),
            "schedule step 'rfactor': missing field 'factor_iterator_position'");
  EXPECT_EQ(
      stepJsonError(R"({"step":"rfactor","stage":0,"iterator":2,"factor_iterator_position":1.0})"),
      "schedule step 'rfactor': field 'factor_iterator_position' must be an integer");
  EXPECT_EQ(
      stepJsonError(
          R"({"step":"rfactor","stage":0,"iterator":2,"factor_iterator_position":1,"axis":0})"),
      "schedule step 'rfactor': unknown field 'axis'");
}

TEST(ScheduleRfactor, PartialStageTakesTheIndexAndTheFactoredLoopBecomesADimension) {
  const TestWorkload test = matmul(2, 8, 64);
  const State state =
      replay(test.workload, {SplitStep{.stage = 0, .iterator = 2, .factors = {8}},
                             RfactorStep{.stage = 0, .iterator = 3, .factorIteratorPosition = 2}});
  ASSERT_EQ(state.stages().size(), 2u);
  const Stage& partial = state.stages()[0];
  const Stage& reduced = state.stages()[1];
  EXPECT_EQ(partial.tensor->name, "C.rf");
  EXPECT_EQ(partial.tensor->shape, (te::Shape{2, 8, 8}));
  EXPECT_EQ(loopNames(partial), (std::vector<std::string>{"C.rf.i0", "C.rf.i1", "C.rf.i2", "k.0"}));
  EXPECT_FALSE(partial.isOutput());
  EXPECT_EQ(reduced.tensor->name, "C");
  EXPECT_EQ(loopNames(reduced), (std::vector<std::string>{"C.i0", "C.i1", "k.1"}));
  EXPECT_EQ(reduced.loop(2).kind, IteratorKind::Reduce);
  EXPECT_EQ(reduced.outputIndex, 0);
  EXPECT_TRUE(matchesReference(test, state));

  // Later stages move up by one and read the final reduction.
  const TestWorkload rows = softmax(3, 20);
  const State softmaxState =
      replay(rows.workload, {RfactorStep{.stage = 0, .iterator = 1, .factorIteratorPosition = 0},
                             ComputeAtStep{.stage = 3, .targetStage = 4, .targetIterator = 0}});
  std::vector<std::string> names;
  for (const Stage& stage : softmaxState.stages())
    names.push_back(stage.tensor->name);
  EXPECT_EQ(names, (std::vector<std::string>{"M.rf", "M", "E", "S", "Y"}));
  EXPECT_EQ(effectiveConsumers(softmaxState, 1), std::vector<int>{2});
  EXPECT_TRUE(matchesReference(rows, softmaxState));
}

TEST(ScheduleRfactor, IllegalRfactorsAreRejectedWithTheirReason) {
  const Workload product = matmul(4, 4, 16).workload;
  const Workload chain = elementwiseChain(4, 6).workload;
  EXPECT_EQ(rejectionReason(product, {}, RfactorStep{.stage = 0, .iterator = 0}),
            "iterator 'C.i0' is not a reduce iterator");
  EXPECT_EQ(rejectionReason(product, {}, RfactorStep{.stage = 0, .iterator = 3}),
            "iterator 3 does not exist (stage 'C' has 3 iterators)");
  EXPECT_EQ(rejectionReason(chain, {}, RfactorStep{.stage = 0, .iterator = 0}),
            "stage 'T1' is not a reduction");
  EXPECT_EQ(rejectionReason(product, {},
                            RfactorStep{.stage = 0, .iterator = 2, .factorIteratorPosition = 3}),
            "factor position 3 is not between 0 and the 2 spatial axes of stage 'C'");
  EXPECT_EQ(rejectionReason(product, {SplitStep{.stage = 0, .iterator = 0, .factors = {2}}},
                            RfactorStep{.stage = 0, .iterator = 3}),
            "rfactor needs the spatial iterators of stage 'C' untransformed (split or fuse only "
            "its reduce iterators before it)");
  EXPECT_EQ(rejectionReason(
                product,
                {AnnotationStep{.stage = 0, .iterator = 1, .annotation = Annotation::Vectorize}},
                RfactorStep{.stage = 0, .iterator = 2}),
            "rfactor must come before annotating stage 'C'");
  const Workload conv = paddedConvolution(2, 2, 4, 4).workload;
  EXPECT_EQ(rejectionReason(conv,
                            {ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = 4}},
                            RfactorStep{.stage = 1, .iterator = 4}),
            "rfactor of stage 'conv' must come before computing 'pad' at it");
}

TEST(ScheduleRfactor, DenseWithFewRowsFactoredOverANonDivisibleSplit) {
  const TestWorkload test = matmul(2, 6, 60);
  // k = 60 split by 8: 8 x 8 with a guard on the last outer iteration.
  for (int factored : {2, 3}) {
    for (int position : {0, 1, 2}) {
      const State state = replay(
          test.workload,
          {SplitStep{.stage = 0, .iterator = 2, .factors = {8}},
           RfactorStep{.stage = 0, .iterator = factored, .factorIteratorPosition = position}});
      EXPECT_TRUE(matchesReference(test, state)) << factored << " " << position;
      EXPECT_TRUE(matchesInterpreter(test.workload, state)) << factored << " " << position;
    }
  }
  // The partial results computed per output row, in parallel over the rf dimension.
  const State state =
      replay(test.workload,
             {SplitStep{.stage = 0, .iterator = 2, .factors = {8}},
              RfactorStep{.stage = 0, .iterator = 2, .factorIteratorPosition = 0},
              AnnotationStep{.stage = 0, .iterator = 0, .annotation = Annotation::Parallel},
              AnnotationStep{.stage = 0, .iterator = 2, .annotation = Annotation::Vectorize},
              ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = 0}});
  const std::string text = te::toString(lower(test.workload, state, "f"));
  EXPECT_TRUE(
      containsInOrder(text, {"for C.i0 in 0..2:", "allocate C.rf: float32[48]",
                             "for C.rf.i0 in 0..8 parallel:", "for k.1 in 0..8:",
                             "select((((C.rf.i0 * 8) + k.1) < 60)", "for k.0 in 0..8:", "C.rf["}))
      << text;
  EXPECT_TRUE(matchesInterpreter(test.workload, state));
}

TEST(ScheduleRfactor, AnUnsplitReduceAxisLeavesAnElementwisePartialStage) {
  const TestWorkload test = matmul(3, 4, 5);
  const State state =
      replay(test.workload, {RfactorStep{.stage = 0, .iterator = 2, .factorIteratorPosition = 1}});
  EXPECT_FALSE(state.stages()[0].tensor->isReduction());
  EXPECT_EQ(state.stages()[0].tensor->shape, (te::Shape{3, 5, 4}));
  EXPECT_TRUE(matchesReference(test, state));
}

TEST(ScheduleRfactor, FullSumOverFusedAndSplitReduceLoops) {
  const TestWorkload test = totalSum(6, 18);
  // ri and rj fused into 108 iterations, split by 10: 11 x 10, the last one guarded.
  for (int factored : {0, 1}) {
    const State state =
        replay(test.workload,
               {FuseStep{.stage = 0, .iterators = {0, 1}},
                SplitStep{.stage = 0, .iterator = 0, .factors = {10}},
                RfactorStep{.stage = 0, .iterator = factored, .factorIteratorPosition = 0}});
    EXPECT_EQ(state.stages()[0].tensor->shape, (te::Shape{factored == 0 ? 11 : 10}));
    EXPECT_TRUE(state.stages()[1].tensor->shape.empty());
    EXPECT_TRUE(matchesReference(test, state)) << factored;
    EXPECT_TRUE(matchesInterpreter(test.workload, state)) << factored;
  }
}

TEST(ScheduleRfactor, SoftmaxMaxAndSumFactoredAndComputedAtTheirConsumers) {
  const TestWorkload test = softmax(4, 30);
  // M (0): k1 split by 7; rfactor on the inner part -> M.rf 0, M 1, E 2, S 3, Y 4.
  // S (3): k2 split by 4, rfactor on the outer part -> S.rf 3, S 4, Y 5.
  const State state =
      replay(test.workload, {SplitStep{.stage = 0, .iterator = 1, .factors = {7}},
                             RfactorStep{.stage = 0, .iterator = 2, .factorIteratorPosition = 1},
                             SplitStep{.stage = 3, .iterator = 1, .factors = {4}},
                             RfactorStep{.stage = 3, .iterator = 1, .factorIteratorPosition = 0},
                             ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = 0},
                             ComputeAtStep{.stage = 3, .targetStage = 4, .targetIterator = 0},
                             ComputeAtStep{.stage = 1, .targetStage = 2, .targetIterator = 0}});
  EXPECT_EQ(state.stages()[3].tensor->name, "S.rf");
  EXPECT_EQ(state.stages()[5].tensor->name, "Y");
  EXPECT_TRUE(matchesReference(test, state));
  EXPECT_TRUE(matchesInterpreter(test.workload, state));
}

TEST(ScheduleRfactor, PaddedConvolutionFactoredOverItsFusedReduction) {
  const TestWorkload test = paddedConvolution(3, 2, 5, 5);
  // rc, rh, rw fused (27) and split by 4 (not a multiple); pad inlined.
  for (int factored : {4, 5}) {
    const State state = replay(
        test.workload, {ComputeInlineStep{.stage = 0}, FuseStep{.stage = 1, .iterators = {4, 5, 6}},
                        SplitStep{.stage = 1, .iterator = 4, .factors = {4}},
                        RfactorStep{.stage = 1, .iterator = factored, .factorIteratorPosition = 4},
                        ComputeAtStep{.stage = 1, .targetStage = 2, .targetIterator = 3}});
    EXPECT_TRUE(matchesReference(test, state)) << factored;
    EXPECT_TRUE(matchesInterpreter(test.workload, state)) << factored;
  }
}

TEST(ScheduleRfactor, CacheWriteOfTheFinalReduction) {
  const TestWorkload test = matmul(3, 10, 24);
  const State state =
      replay(test.workload, {SplitStep{.stage = 0, .iterator = 2, .factors = {6}},
                             RfactorStep{.stage = 0, .iterator = 2, .factorIteratorPosition = 2},
                             CacheWriteStep{.stage = 1},
                             ComputeAtStep{.stage = 1, .targetStage = 2, .targetIterator = 0},
                             ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = 1}});
  EXPECT_EQ(state.stages()[1].tensor->name, "C.local");
  EXPECT_TRUE(matchesReference(test, state));
}

TEST(ScheduleRfactor, CompiledRfactorScheduleMatchesTheReference) {
  const TestWorkload test = matmul(3, 20, 300);
  // k split by 16 (300 is not a multiple), the inner part factored out and vectorized, the
  // partial results computed per output row in parallel.
  const State state =
      replay(test.workload,
             {SplitStep{.stage = 0, .iterator = 2, .factors = {16}},
              RfactorStep{.stage = 0, .iterator = 3, .factorIteratorPosition = 2},
              ReorderStep{.stage = 0, .order = {0, 1, 3, 2}},
              AnnotationStep{.stage = 0, .iterator = 1, .annotation = Annotation::Parallel},
              AnnotationStep{.stage = 0, .iterator = 3, .annotation = Annotation::Vectorize},
              ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = 0}});
  EXPECT_TRUE(compiledMatchesInterpreter(test.workload, state, "rfactor_dense", {3, 20}, 4));
}

} // namespace
