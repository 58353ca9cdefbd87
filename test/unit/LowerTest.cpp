// Lowering of scheduled workloads to loop nests (lib/schedule/Lower.h), run in the loop
// interpreter and compared with plain C++ references: element-wise chains with broadcasting,
// matmul reductions, a padded convolution with the pad stage computed at every loop of the
// convolution, a nested compute_at chain, softmax, a rank-0 reduction, and a few hundred
// random legal schedules. The printed loop nests pin the structure: guards only where a split
// does not divide, initialisation before the first reduce loop, local buffers of the size
// bound inference finds.
#include "schedule/Lower.h"

#include "ScheduleTestSupport.h"
#include "support/Random.h"

#include <gtest/gtest.h>

using namespace clustune::schedule;
using namespace clustune::schedule::testing;
namespace te = clustune::te;

namespace {

std::string lowered(const TestWorkload& test, const State& state) {
  return te::toString(lower(test.workload, state, "f"));
}

std::string lowered(const TestWorkload& test, const std::vector<Step>& steps) {
  return lowered(test, replay(test.workload, steps));
}

TEST(Lower, InitialStateOfAnElementwiseChainIsOneNestPerStage) {
  const TestWorkload test = elementwiseChain(4, 6);
  const State state = initialState(test.workload);
  EXPECT_EQ(lowered(test, state),
            "function f(A: float32[24], B: float32[6], Out: float32[24]):\n"
            "  allocate T1: float32[24]\n"
            "  allocate T2: float32[24]\n"
            "  for T1.i0 in 0..4:\n"
            "    for T1.i1 in 0..6:\n"
            "      T1[((T1.i0 * 6) + T1.i1)] = (A[((T1.i0 * 6) + T1.i1)] + B[T1.i1])\n"
            "  for T2.i0 in 0..4:\n"
            "    for T2.i1 in 0..6:\n"
            "      T2[((T2.i0 * 6) + T2.i1)] = max(T1[((T2.i0 * 6) + T2.i1)], 0f)\n"
            "  for Out.i0 in 0..4:\n"
            "    for Out.i1 in 0..6:\n"
            "      Out[((Out.i0 * 6) + Out.i1)] = ((T2[((Out.i0 * 6) + Out.i1)] * 2f) - "
            "A[((Out.i0 * 6) + Out.i1)])\n");
  EXPECT_TRUE(matchesReference(test, state));
}

TEST(Lower, InlinedStagesAreSubstitutedIntoTheirConsumers) {
  const TestWorkload test = elementwiseChain(4, 6);
  const State state =
      replay(test.workload, {ComputeInlineStep{.stage = 0}, ComputeInlineStep{.stage = 1}});
  EXPECT_EQ(lowered(test, state),
            "function f(A: float32[24], B: float32[6], Out: float32[24]):\n"
            "  for Out.i0 in 0..4:\n"
            "    for Out.i1 in 0..6:\n"
            "      Out[((Out.i0 * 6) + Out.i1)] = ((max((A[((Out.i0 * 6) + Out.i1)] + "
            "B[Out.i1]), 0f) * 2f) - A[((Out.i0 * 6) + Out.i1)])\n");
  EXPECT_TRUE(matchesReference(test, state));
}

TEST(Lower, ANonDivisibleSplitIsGuardedAndADivisibleOneIsNot) {
  const TestWorkload test = elementwiseChain(4, 6);
  const std::vector<Step> inlineAll = {ComputeInlineStep{.stage = 0},
                                       ComputeInlineStep{.stage = 1}};
  std::vector<Step> byFour = inlineAll, byThree = inlineAll;
  byFour.push_back(SplitStep{.stage = 2, .iterator = 1, .factors = {4}});
  byThree.push_back(SplitStep{.stage = 2, .iterator = 1, .factors = {3}});
  EXPECT_TRUE(containsInOrder(
      lowered(test, byFour),
      {"for Out.i1.0 in 0..2:", "for Out.i1.1 in 0..4:", "if (((Out.i1.0 * 4) + Out.i1.1) < 6):",
       "Out[(((Out.i0 * 6) + (Out.i1.0 * 4)) + Out.i1.1)] ="}));
  EXPECT_EQ(lowered(test, byThree).find("if "), std::string::npos) << lowered(test, byThree);
  EXPECT_TRUE(matchesReference(test, replay(test.workload, byFour)));
  EXPECT_TRUE(matchesReference(test, replay(test.workload, byThree)));
}

TEST(Lower, FusedLoopsAreDividedBackIntoTheirAxes) {
  const TestWorkload test = elementwiseChain(4, 6);
  // 24 fused iterations split by 5: 5 x 5 with a guard on the fused value.
  const State state =
      replay(test.workload, {ComputeInlineStep{.stage = 0}, ComputeInlineStep{.stage = 1},
                             FuseStep{.stage = 2, .iterators = {0, 1}},
                             SplitStep{.stage = 2, .iterator = 0, .factors = {5}}});
  const std::string text = lowered(test, state);
  EXPECT_TRUE(containsInOrder(text, {"for Out.i0@Out.i1.0 in 0..5:", "for Out.i0@Out.i1.1 in 0..5:",
                                     "if (((Out.i0@Out.i1.0 * 5) + Out.i0@Out.i1.1) < 24):",
                                     "Out[((Out.i0@Out.i1.0 * 5) + Out.i0@Out.i1.1)] ="}));
  // The broadcast operand needs the column back: the fused value modulo 6.
  EXPECT_NE(text.find("B[(((Out.i0@Out.i1.0 * 5) + Out.i0@Out.i1.1) % 6)]"), std::string::npos)
      << text;
  EXPECT_TRUE(matchesReference(test, state));
}

TEST(Lower, ReductionsInitialiseBeforeTheirFirstReduceLoop) {
  const TestWorkload test = matmul(4, 8, 6);
  const State state = initialState(test.workload);
  EXPECT_EQ(lowered(test, state),
            "function f(A: float32[24], B: float32[48], C: float32[32]):\n"
            "  for C.i0 in 0..4:\n"
            "    for C.i1 in 0..8:\n"
            "      C[((C.i0 * 8) + C.i1)] = 0f\n"
            "      for k in 0..6:\n"
            "        C[((C.i0 * 8) + C.i1)] = (C[((C.i0 * 8) + C.i1)] + (A[((C.i0 * 6) + k)] * "
            "B[((k * 8) + C.i1)]))\n");
  EXPECT_TRUE(matchesReference(test, state));

  // With k outermost, the whole output is initialised first, by its own loops.
  const State reordered = replay(test.workload, {ReorderStep{.stage = 0, .order = {2, 0, 1}}});
  EXPECT_TRUE(containsInOrder(
      lowered(test, reordered),
      {"for C.i0 in 0..4:", "for C.i1 in 0..8:", "= 0f",
       "for k in 0..6:", "for C.i0 in 0..4:", "for C.i1 in 0..8:", "(C[((C.i0 * 8) + C.i1)] +"}));
  EXPECT_TRUE(matchesReference(test, reordered));
}

TEST(Lower, ANonDivisibleReduceSplitGuardsTheUpdateOnly) {
  const TestWorkload test = matmul(4, 8, 10);
  const State state = replay(test.workload, {SplitStep{.stage = 0, .iterator = 2, .factors = {4}},
                                             ReorderStep{.stage = 0, .order = {0, 2, 1, 3}}});
  const std::string text = lowered(test, state);
  EXPECT_TRUE(containsInOrder(
      text,
      {"for C.i0 in 0..4:", "for C.i1 in 0..8:", "C[((C.i0 * 8) + C.i1)] = 0f", "for k.0 in 0..3:",
       "for C.i1 in 0..8:", "for k.1 in 0..4:", "if (((k.0 * 4) + k.1) < 10):"}))
      << text;
  EXPECT_TRUE(matchesReference(test, state));
}

TEST(Lower, MaxReductionsStartFromMinusInfinity) {
  const TestWorkload test = softmax(3, 10);
  const State state = initialState(test.workload);
  EXPECT_TRUE(containsInOrder(
      lowered(test, state),
      {"M[M.i0] = -inff", "for k1 in 0..10:", "M[M.i0] = max(M[M.i0], X[((M.i0 * 10) + k1)])"}));
  EXPECT_TRUE(matchesReference(test, state));
}

TEST(Lower, ARankZeroReductionInitialisesOutsideAllLoops) {
  const TestWorkload test = totalSum(3, 5);
  const State state = initialState(test.workload);
  EXPECT_EQ(lowered(test, state), "function f(A: float32[15], Total: float32[1]):\n"
                                  "  Total[0] = 0f\n"
                                  "  for ri in 0..3:\n"
                                  "    for rj in 0..5:\n"
                                  "      Total[0] = (Total[0] + A[((ri * 5) + rj)])\n");
  EXPECT_TRUE(matchesReference(test, state));
}

TEST(Lower, AnnotationsBecomeLoopKindsAndThePragmaSitsOnTheOutermostLoop) {
  const TestWorkload test = matmul(8, 32, 4);
  const State state =
      replay(test.workload,
             {SplitStep{.stage = 0, .iterator = 1, .factors = {16}},
              ReorderStep{.stage = 0, .order = {0, 1, 3, 2}},
              AnnotationStep{.stage = 0, .iterator = 0, .annotation = Annotation::Parallel},
              AnnotationStep{.stage = 0, .iterator = 2, .annotation = Annotation::Unroll},
              AnnotationStep{.stage = 0, .iterator = 3, .annotation = Annotation::Vectorize},
              PragmaStep{.stage = 0, .iterator = 0, .autoUnrollMaxStep = 16}});
  const std::string text = lowered(test, state);
  EXPECT_TRUE(
      containsInOrder(text, {"for C.i0 in 0..8 parallel auto_unroll_max_step=16:",
                             "for C.i1.0 in 0..2:", "for C.i1.1 in 0..16 vectorized:", "= 0f",
                             "for k in 0..4 unrolled:", "for C.i1.1 in 0..16 vectorized:"}))
      << text;
  EXPECT_EQ(text.find("auto_unroll_max_step"), text.rfind("auto_unroll_max_step"));
  EXPECT_TRUE(matchesReference(test, state));
}

TEST(Lower, ThreadBindingsBecomeBoundLoopsThatTheInterpreterRunsAsSerialOnes) {
  // Ansor's GPU tiling of a matmul's spatial axes: blocks, virtual threads, threads.
  const TestWorkload test = matmul(8, 32, 4);
  const State state =
      replay(test.workload,
             {SplitStep{.stage = 0, .iterator = 1, .factors = {2, 8}},
              ReorderStep{.stage = 0, .order = {0, 1, 2, 3, 4}},
              AnnotationStep{.stage = 0, .iterator = 0, .annotation = Annotation::BlockIdxX},
              AnnotationStep{.stage = 0, .iterator = 1, .annotation = Annotation::BlockIdxY},
              AnnotationStep{.stage = 0, .iterator = 2, .annotation = Annotation::VThread},
              AnnotationStep{.stage = 0, .iterator = 3, .annotation = Annotation::ThreadIdxX}});
  const std::string text = lowered(test, state);
  EXPECT_TRUE(containsInOrder(
      text, {"for C.i0 in 0..8 blockIdx.x:", "for C.i1.0 in 0..2 blockIdx.y:",
             "for C.i1.1 in 0..2 vthread:", "for C.i1.2 in 0..8 threadIdx.x:", "for k in 0..4:"}))
      << text;
  EXPECT_TRUE(matchesReference(test, state));
}

TEST(Lower, SharedCopiesAreFetchedByTheBlocksThreadsBetweenBarriers) {
  const TestWorkload test = matmul(64, 64, 64);
  const State state = replay(test.workload, sharedMemoryMatmulSteps());
  const std::string text = lowered(test, state);
  // Each copy holds what the block's 64 threads read in one k0 iteration (16 x 8 of A, 8 x 16
  // of B), indexed from the tile's corner, and is fetched by the same 64 threads.
  EXPECT_TRUE(containsInOrder(text, {"blockIdx.x:", "threadIdx.x:", "for k.0 in 0..8:",
                                     "allocate B.shared shared: "
                                     "float32[128]",
                                     "allocate A.shared shared: float32[128]", "barrier",
                                     "threadIdx.x:", "B.shared[", "threadIdx.x:", "A.shared[",
                                     "barrier", "C["}))
      << text;
  // Run with the block's threads at once, meeting at the barriers, it computes the product.
  EXPECT_TRUE(matchesReference(test, state));
}

TEST(Lower, CrossThreadReductionFoldsTheThreadsSharesInSharedMemory) {
  // Ansor's cross-thread reduction: a block per output, 32 threads sharing its 100 products.
  const TestWorkload test = matmul(4, 3, 100);
  const State state = replay(test.workload, crossThreadMatmulSteps(32));
  const std::string text = lowered(test, state);
  EXPECT_TRUE(containsInOrder(
      text, {"for C.i0@C.i1 in 0..12 blockIdx.x:", "allocate C.partials shared: float32[32]",
             "for k.1 in 0..32 threadIdx.x:", "allocate C.partial: float32[1]", "C.partial[0] = 0f",
             "for k.0 in 0..4:", "if (", "C.partial[0] = (C.partial[0] +",
             "C.partials[k.1] = C.partial[0]", "barrier", "if (k.1 < 16)",
             "C.partials[k.1] = (C.partials[k.1] + C.partials[(k.1 + 16)])", "barrier",
             "if (k.1 < 1)", "barrier", "if (k.1 == 0)", "C[", "= C.partials[0]"}))
      << text;
  EXPECT_TRUE(matchesReference(test, state));
}

TEST(Lower, CrossThreadReductionOverAThreadCountThatIsNotAPowerOfTwo) {
  // softmax's row maximum over 10 columns on 6 threads (two steps guarded); 8 threads in the
  // tree's first step would read past the 6 shares.
  const TestWorkload test = softmax(3, 10);
  const State state =
      replay(test.workload,
             {SplitStep{.stage = 0, .iterator = 1, .factors = {6}},
              AnnotationStep{.stage = 0, .iterator = 0, .annotation = Annotation::BlockIdxX},
              AnnotationStep{.stage = 0, .iterator = 2, .annotation = Annotation::ThreadIdxX}});
  const std::string text = lowered(test, state);
  EXPECT_TRUE(containsInOrder(
      text, {"allocate M.partials shared: float32[6]", "M.partial[0] = -inff", "if (k1.1 < 2)",
             "max(M.partials[k1.1], M.partials[(k1.1 + 4)])", "if (k1.1 < 2)", "if (k1.1 < 1)"}))
      << text;
  EXPECT_TRUE(matchesReference(test, state));
}

TEST(Lower, CrossThreadReductionComputedInTheConsumersBlockIsSharedWithItsThreads) {
  // Per row of softmax's exponentials (a block of 10 threads), the row maximum is reduced by
  // the same 10 threads first; what thread 0 stores, all ten then read.
  const TestWorkload test = softmax(3, 10);
  const State state = replay(test.workload, crossThreadSoftmaxSteps());
  const std::string text = lowered(test, state);
  EXPECT_TRUE(containsInOrder(
      text, {"for E.i0 in 0..3 blockIdx.x:", "allocate M shared: float32[1]", "barrier",
             "for k1 in 0..10 threadIdx.x:", "M.partials[k1]", "if (k1 == 0)", "M[0] =", "barrier",
             "for E.i1 in 0..10 threadIdx.x:", "M[0]"}))
      << text;
  EXPECT_TRUE(matchesReference(test, state));
}

TEST(Lower, CrossThreadReductionInsideAnotherStagesThreadLoopIsRefused) {
  const TestWorkload test = softmax(3, 10);
  const State state =
      replay(test.workload,
             {AnnotationStep{.stage = 0, .iterator = 1, .annotation = Annotation::ThreadIdxX},
              AnnotationStep{.stage = 1, .iterator = 1, .annotation = Annotation::ThreadIdxX},
              ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = 1}});
  try {
    lowered(test, state);
    FAIL() << "lowered";
  } catch (const clustune::Error& error) {
    EXPECT_NE(std::string(error.what())
                  .find("stage 'M' is a cross-thread reduction computed "
                        "inside threadIdx.x loop 'E.i1'"),
              std::string::npos)
        << error.what();
  }
}

TEST(Lower, PadComputedAtTheConvolutionsWidthLoopNeedsOneWindow) {
  const TestWorkload test = paddedConvolution(2, 3, 5, 6);
  const State state =
      replay(test.workload, {ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = 3}});
  const std::string text = lowered(test, state);
  // Per output pixel: 2 channels x 3 x 3 padded inputs, indexed from the window's corner.
  EXPECT_TRUE(
      containsInOrder(text, {"for conv.i3 in 0..6:", "allocate pad: float32[18]",
                             "for pad.i1 in 0..2:", "for pad.i2 in 0..3:", "for pad.i3 in 0..3:",
                             "pad[(((pad.i1 * 9) + (pad.i2 * 3)) + pad.i3)] = select(", "= 0f",
                             "for rc in 0..2:", "pad[(((rc * 9) + (rh * 3)) + rw)]"}))
      << text;
  // Inside the padded tensor everywhere: no guard survives.
  EXPECT_EQ(text.find("if "), std::string::npos) << text;
  EXPECT_TRUE(matchesReference(test, state));
}

TEST(Lower, PadComputedAtEveryLoopOfTheConvolutionGivesTheSameValues) {
  const TestWorkload test = paddedConvolution(2, 3, 5, 6);
  // Per iteration of each of conv's 7 loops (n, k, h, w, rc, rh, rw) the pad region is:
  const std::int64_t expectedElements[] = {2 * 7 * 8, 2 * 7 * 8, 2 * 3 * 8, 2 * 3 * 3,
                                           1 * 3 * 3, 1 * 1 * 3, 1};
  for (int loop = 0; loop < 7; ++loop) {
    const State state = replay(
        test.workload, {ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = loop}});
    const std::string allocation =
        "allocate pad: float32[" + std::to_string(expectedElements[loop]) + "]";
    EXPECT_NE(lowered(test, state).find(allocation), std::string::npos) << "loop " << loop << "\n"
                                                                        << lowered(test, state);
    EXPECT_TRUE(matchesReference(test, state)) << "loop " << loop;
  }
}

TEST(Lower, ComputeAtInsideSplitAndFusedLoopsCoversTheConsumersReads) {
  const TestWorkload test = paddedConvolution(2, 3, 5, 6);
  // conv: fuse (n, k, h), split w by 4 (6 is not a multiple), reduce loops between.
  const std::vector<Step> tiling = {FuseStep{.stage = 1, .iterators = {0, 1, 2}},
                                    SplitStep{.stage = 1, .iterator = 1, .factors = {4}},
                                    ReorderStep{.stage = 1, .order = {0, 1, 3, 4, 5, 2}}};
  for (int loop = 0; loop < 6; ++loop) {
    std::vector<Step> steps = tiling;
    steps.push_back(ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = loop});
    EXPECT_TRUE(matchesReference(test, replay(test.workload, steps))) << "loop " << loop;
  }
  // At the outer width part: 2 channels x 3 rows x (4 + 2) columns; its last window sticks
  // out of the padded tensor (columns 8..9 of 0..7), so the pad nest keeps a guard.
  std::vector<Step> steps = tiling;
  steps.push_back(ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = 1});
  const std::string text = lowered(test, steps);
  EXPECT_TRUE(containsInOrder(text, {"for conv.i3.0 in 0..2:", "allocate pad: float32[36]",
                                     "for pad.i3 in 0..6:", "if ", "< 8)"}))
      << text;
}

TEST(Lower, NestedComputeAtShrinksEachRegionToOneIterationsWindow) {
  const TestWorkload test = stencilChain(10);
  // D split 10 = 3 x 4 (guarded); C at D's inner part, B at C's only loop.
  const std::vector<Step> inner = {
      SplitStep{.stage = 2, .iterator = 0, .factors = {4}},
      ComputeAtStep{.stage = 1, .targetStage = 2, .targetIterator = 1},
      ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = 0}};
  EXPECT_TRUE(containsInOrder(
      lowered(test, inner), {"for D.i0.0 in 0..3:", "for D.i0.1 in 0..4:", "allocate C: float32[3]",
                             "for C.i0 in 0..3:", "allocate B: float32[3]",
                             "for B.i0 in 0..3:", "C[C.i0] = ((B[0] + B[1]) + B[2])",
                             "D[((D.i0.0 * 4) + D.i0.1)] = (C[0] + C[2])"}))
      << lowered(test, inner);
  EXPECT_TRUE(matchesReference(test, replay(test.workload, inner)));
  // At the outer part, one iteration covers 4 outputs: 6 values of C and 8 of B.
  const std::vector<Step> outer = {
      SplitStep{.stage = 2, .iterator = 0, .factors = {4}},
      ComputeAtStep{.stage = 1, .targetStage = 2, .targetIterator = 0},
      ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = 0}};
  EXPECT_TRUE(
      containsInOrder(lowered(test, outer), {"for D.i0.0 in 0..3:", "allocate C: float32[6]",
                                             "for C.i0 in 0..6:", "allocate B: float32[3]"}))
      << lowered(test, outer);
  EXPECT_TRUE(matchesReference(test, replay(test.workload, outer)));
}

TEST(Lower, SoftmaxWithTheRowMaximumComputedPerRowOfTheExponentials) {
  const TestWorkload test = softmax(3, 10);
  const State state =
      replay(test.workload, {ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = 0}});
  EXPECT_TRUE(
      containsInOrder(lowered(test, state),
                      {"allocate E: float32[30]", "for E.i0 in 0..3:", "allocate M: float32[1]",
                       "M[0] = -inff", "for k1 in 0..10:", "for E.i1 in 0..10:", "M[0]"}))
      << lowered(test, state);
  EXPECT_TRUE(matchesReference(test, state));
}

// Random legal schedules: any step sequence that State accepts must lower to a program that
// computes the reference's values.
Step randomStep(clustune::Rng& rng, const State& state) {
  const int stageIndex = static_cast<int>(rng.uniformInt(state.stages().size()));
  const Stage& stage = state.stages()[stageIndex];
  const int loops = static_cast<int>(std::max<std::size_t>(stage.loops.size(), 1));
  const int iterator = static_cast<int>(rng.uniformInt(loops));
  switch (rng.uniformInt(10)) {
  case 0:
  case 1:
  case 2: {
    const std::int64_t extent = stage.loops.empty() ? 1 : stage.loop(iterator).extent;
    std::vector<std::int64_t> factors = {rng.uniformInt(1, std::max<std::int64_t>(extent, 1))};
    if (rng.uniformInt(3) == 0)
      factors.push_back(rng.uniformInt(1, 3));
    return SplitStep{.stage = stageIndex, .iterator = iterator, .factors = factors};
  }
  case 3:
    return FuseStep{.stage = stageIndex, .iterators = {iterator, iterator + 1}};
  case 4: {
    std::vector<int> order;
    for (int position = 0; position < loops; ++position)
      order.push_back(position);
    rng.shuffle(order);
    return ReorderStep{.stage = stageIndex, .order = order};
  }
  case 5: {
    const Annotation annotations[] = {Annotation::Parallel, Annotation::Vectorize,
                                      Annotation::Unroll};
    return AnnotationStep{
        .stage = stageIndex, .iterator = iterator, .annotation = annotations[rng.uniformInt(3)]};
  }
  case 6:
  case 7: {
    const int target = static_cast<int>(rng.uniformInt(state.stages().size()));
    const std::size_t targetLoops = std::max<std::size_t>(state.stages()[target].loops.size(), 1);
    return ComputeAtStep{.stage = stageIndex,
                         .targetStage = target,
                         .targetIterator = static_cast<int>(rng.uniformInt(targetLoops))};
  }
  case 8:
    return ComputeInlineStep{.stage = stageIndex};
  default:
    return rng.uniformInt(2)
               ? Step{ComputeRootStep{.stage = stageIndex}}
               : Step{PragmaStep{
                     .stage = stageIndex, .iterator = iterator, .autoUnrollMaxStep = 16}};
  }
}

TEST(Lower, RandomLegalSchedulesComputeTheReferenceValues) {
  const TestWorkload workloads[] = {
      elementwiseChain(5, 7), matmul(6, 10, 7), paddedConvolution(2, 3, 5, 6),
      softmax(3, 10),         stencilChain(9),  totalSum(4, 5)};
  clustune::Rng rng(2024);
  int accepted = 0, rejected = 0, withComputeAt = 0;
  for (const TestWorkload& test : workloads) {
    for (int schedule = 0; schedule < 40; ++schedule) {
      State state = initialState(test.workload);
      for (int attempt = 0; attempt < 12; ++attempt) {
        try {
          state = applyStep(state, randomStep(rng, state));
          ++accepted;
        } catch (const InvalidScheduleError&) {
          ++rejected;
        }
      }
      for (const Stage& stage : state.stages())
        withComputeAt += stage.location.kind == ComputeLocationKind::At;
      ASSERT_TRUE(matchesReference(test, state)) << toString(state);
    }
  }
  // The generator must exercise the steps, not only produce rejected ones.
  EXPECT_GT(accepted, 1000);
  EXPECT_GT(rejected, 100);
  EXPECT_GT(withComputeAt, 20);
}

} // namespace
