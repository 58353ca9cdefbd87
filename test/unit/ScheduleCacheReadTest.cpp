// The cache_read step (lib/schedule/CacheRead.cpp, State.cpp): its JSON form, Ansor's stage
// renumbering, the reasons it is refused, and that lowering with the copy computed at a tile
// loop of its reader (a packed panel, with non-divisible splits and padding) computes what the
// te reference interpreter computes, in the loop interpreter and in LLVM-compiled code.
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

std::string lowered(const Workload& workload, const State& state) {
  return te::toString(lower(workload, state, "f"));
}

// The reason of the InvalidScheduleError that `step` raises after `before`.
std::vector<std::string> stageNames(const State& state) {
  std::vector<std::string> names;
  for (const Stage& stage : state.stages())
    names.push_back(stage.tensor->name);
  return names;
}

// The loop interpreter against te::evaluateWorkload, on seeded inputs.
::testing::AssertionResult matchesInterpreter(const Workload& workload, const State& state,
                                              std::uint64_t seed = 5) {
  const std::vector<TensorData> inputs = randomInputs(workload, seed);
  const std::vector<TensorData> expected = te::evaluateWorkload(workload, inputs);
  const std::vector<TensorData> actual = runState(workload, state, inputs);
  for (std::size_t k = 0; k < expected.size(); ++k)
    if (auto result = allClose(actual[k], expected[k], 1e-5); !result)
      return result << " (output " << k << ")\n" << lowered(workload, state);
  return ::testing::AssertionSuccess();
}

CacheReadStep cacheReadOfInput(int input, std::vector<int> readers) {
  return CacheReadStep{.stage = -1, .input = input, .scope = "local", .readers = readers};
}

CacheReadStep cacheReadOfStage(int stage, std::vector<int> readers) {
  return CacheReadStep{.stage = stage, .input = -1, .scope = "local", .readers = readers};
}

// A GEMM tile schedule that packs both operands per k block: A.local 0, B.local 1, C 2 with
// loops i.0 j.0 k.0 i.1 k.1 j.1 (tiles of 8 rows x 16 columns x 16 k), the packed panels of A
// (8 x 16) and B (16 x 16) computed at k.0, so that the tile reads them contiguously.
std::vector<Step> packedGemm() {
  return {cacheReadOfInput(1, {0}),
          cacheReadOfInput(0, {1}),
          SplitStep{.stage = 2, .iterator = 0, .factors = {8}},
          SplitStep{.stage = 2, .iterator = 2, .factors = {16}},
          SplitStep{.stage = 2, .iterator = 4, .factors = {16}},
          ReorderStep{.stage = 2, .order = {0, 2, 4, 1, 5, 3}},
          ComputeAtStep{.stage = 1, .targetStage = 2, .targetIterator = 2},
          ComputeAtStep{.stage = 0, .targetStage = 2, .targetIterator = 2},
          AnnotationStep{.stage = 1, .iterator = 1, .annotation = Annotation::Vectorize},
          AnnotationStep{.stage = 2, .iterator = 5, .annotation = Annotation::Vectorize}};
}

TEST(ScheduleCacheRead, JsonRoundTripAndFixedFieldOrder) {
  const Step ofInput = cacheReadOfInput(1, {0, 2});
  const std::string text = toJson(ofInput).dump();
  EXPECT_EQ(text, R"({"step":"cache_read","stage":-1,"input":1,"scope":"local","readers":[0,2]})");
  EXPECT_EQ(stepFromJson(nlohmann::json::parse(text)), ofInput);
  EXPECT_EQ(toString(ofInput), "cache_read(stage -1, input 1, local, readers [0, 2])");
  const Step ofStage = CacheReadStep{.stage = 3, .input = -1, .scope = "global", .readers = {4}};
  EXPECT_EQ(toJson(ofStage).dump(),
            R"({"step":"cache_read","stage":3,"input":-1,"scope":"global","readers":[4]})");
  EXPECT_EQ(toString(ofStage), "cache_read(stage 3, global, readers [4])");
  const std::vector<Step> steps = packedGemm();
  EXPECT_EQ(stepsFromJson(nlohmann::ordered_json::parse(toJson(steps).dump())), steps);
}

TEST(ScheduleCacheRead, MalformedJsonIsRejected) {
  EXPECT_EQ(stepJsonError(R"({"step":"cache_read","stage":0,"input":-1,"scope":"local"})"),
            "schedule step 'cache_read': missing field 'readers'");
  EXPECT_EQ(stepJsonError(R"({"step":"cache_read","stage":0,"scope":"local","readers":[1]})"),
            "schedule step 'cache_read': missing field 'input'");
  EXPECT_EQ(stepJsonError(R"({"step":"cache_read","stage":0,"input":-1,"scope":"texture",)"
                          R"("readers":[1]})"),
            "schedule step 'cache_read': unknown scope 'texture' (known: \"local\", \"global\", "
            "\"shared\")");
  EXPECT_EQ(stepJsonError(R"({"step":"cache_read","stage":0,"input":-1,"scope":"local",)"
                          R"("readers":[1],"iterator":0})"),
            "schedule step 'cache_read': unknown field 'iterator'");
  EXPECT_EQ(stepJsonError(R"({"step":"cache_read","stage":0,"input":-1,"scope":"local",)"
                          R"("readers":1})"),
            "schedule step 'cache_read': field 'readers' must be an array of integers");
  EXPECT_EQ(stepJsonError(R"({"step":"cache_read","stage":0,"input":-1,"scope":"local",)"
                          R"("readers":[1.5]})"),
            "schedule step 'cache_read': field 'readers' must be an array of integers");
  EXPECT_EQ(stepJsonError(R"({"step":"cache_read","stage":0,"input":"0","scope":"local",)"
                          R"("readers":[1]})"),
            "schedule step 'cache_read': field 'input' must be an integer");
}

TEST(ScheduleCacheRead, TheCopyFollowsItsProducerAndLaterStagesMoveUp) {
  const TestWorkload test = softmax(3, 10);
  // S (stage 2) computed at Y (stage 3) before E (stage 1) is copied for S and Y.
  const State state =
      replay(test.workload, {ComputeAtStep{.stage = 2, .targetStage = 3, .targetIterator = 0},
                             cacheReadOfStage(1, {2, 3})});
  EXPECT_EQ(stageNames(state), (std::vector<std::string>{"M", "E", "E.local", "S", "Y"}));
  EXPECT_EQ(state.stages()[3].location.kind, ComputeLocationKind::At);
  EXPECT_EQ(state.stages()[3].location.targetStage, 4);
  EXPECT_EQ(state.stages()[4].outputIndex, 0);
  EXPECT_EQ(effectiveConsumers(state, 1), std::vector<int>{2});
  EXPECT_EQ(effectiveConsumers(state, 2), (std::vector<int>{3, 4}));
  EXPECT_TRUE(matchesReference(test, state));

  // An input's copy comes first; a reader not listed keeps reading the original.
  const State input = replay(test.workload, {cacheReadOfInput(0, {0})});
  EXPECT_EQ(stageNames(input), (std::vector<std::string>{"X.local", "M", "E", "S", "Y"}));
  EXPECT_EQ(effectiveConsumers(input, 0), std::vector<int>{1});
  const std::vector<Tensor> producersOfE = te::producersOf(input.stages()[2].tensor);
  EXPECT_NE(std::find(producersOfE.begin(), producersOfE.end(), test.workload.inputs[0]),
            producersOfE.end());
  EXPECT_TRUE(matchesReference(test, input));
}

TEST(ScheduleCacheRead, IllegalCacheReadsAreRejectedWithTheirReason) {
  const Workload product = matmul(8, 8, 8).workload;
  const Workload conv = paddedConvolution(2, 2, 4, 4).workload; // pad 0, conv 1; X 0, W 1
  EXPECT_EQ(rejectionReason(product, {}, cacheReadOfStage(1, {0})),
            "stage 1 does not exist (the workload has 1 stages)");
  EXPECT_EQ(rejectionReason(product, {}, cacheReadOfStage(-2, {0})),
            "stage -2 does not exist (the workload has 1 stages)");
  EXPECT_EQ(rejectionReason(product, {}, cacheReadOfInput(2, {0})),
            "input 2 does not exist (the workload has 2 inputs)");
  EXPECT_EQ(rejectionReason(conv, {}, CacheReadStep{.stage = 0, .input = 0, .readers = {1}}),
            "name either a stage or an input (the other -1), not stage 0 and input 0");
  EXPECT_EQ(
      rejectionReason(product, {},
                      CacheReadStep{.stage = -1, .input = 0, .scope = "texture", .readers = {0}}),
      "unknown scope 'texture' (known: \"local\", \"global\", \"shared\")");
  EXPECT_EQ(rejectionReason(product, {}, cacheReadOfInput(0, {})),
            "cache_read needs at least one reader");
  EXPECT_EQ(rejectionReason(product, {}, cacheReadOfInput(0, {0, 0})),
            "reader stage 0 is listed twice");
  EXPECT_EQ(rejectionReason(product, {}, cacheReadOfInput(0, {3})),
            "stage 3 does not exist (the workload has 1 stages)");
  EXPECT_EQ(rejectionReason(conv, {}, cacheReadOfInput(0, {1})), "stage 'conv' does not read 'X'");
  EXPECT_EQ(rejectionReason(conv, {ComputeInlineStep{.stage = 0}}, cacheReadOfInput(0, {0})),
            "reader stage 'pad' is inlined (name the stages it is inlined into, before inlining "
            "it)");
  // pad is computed at conv, which would read pad through the copy instead.
  EXPECT_EQ(rejectionReason(conv,
                            {ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = 2}},
                            cacheReadOfStage(0, {1})),
            "stage 'pad' is computed at 'conv' but would be read by 'pad.local'");
}

TEST(ScheduleCacheRead, PackedGemmPanelsMatchTheReference) {
  // 20 x 40 x 37: every split leaves a partial tile.
  const TestWorkload test = matmul(20, 40, 37);
  const State state = replay(test.workload, packedGemm());
  EXPECT_EQ(stageNames(state), (std::vector<std::string>{"A.local", "B.local", "C"}));
  const std::string text = lowered(test.workload, state);
  // The panels are allocated per k block, inside the tile loops, at the tile's size.
  EXPECT_TRUE(containsInOrder(text, {"for C.i0.0", "for C.i1.0", "for k.0",
                                     "allocate A.local: float32[128]",
                                     "allocate B.local: float32[256]", "for k.1"}))
      << text;
  EXPECT_TRUE(matchesReference(test, state));
  EXPECT_TRUE(matchesInterpreter(test.workload, state));

  // Only B packed, at the column-tile loop: a whole k x 16 panel.
  const State panel =
      replay(test.workload,
             {cacheReadOfInput(1, {0}), SplitStep{.stage = 1, .iterator = 1, .factors = {16}},
              ReorderStep{.stage = 1, .order = {1, 0, 2, 3}},
              ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = 0}});
  EXPECT_NE(lowered(test.workload, panel).find("allocate B.local: float32[592]"), std::string::npos)
      << lowered(test.workload, panel);
  EXPECT_TRUE(matchesInterpreter(test.workload, panel));
}

TEST(ScheduleCacheRead, PaddedConvolutionWithCopiesAtTileLoopsMatchesTheReference) {
  const TestWorkload test = paddedConvolution(3, 4, 6, 6); // X 0, W 1; pad 0, conv 1
  std::vector<Step> steps = {
      cacheReadOfInput(0, {0}), // X.local 0, pad 1, conv 2
      cacheReadOfStage(1, {2}), // X.local 0, pad 1, pad.local 2, conv 3
      cacheReadOfInput(1, {3}), // W.local 0, X.local 1, pad 2, pad.local 3, conv 4
      SplitStep{.stage = 4, .iterator = 2, .factors = {4}},       // conv: n k h.0 h.1 w rc rh rw
      ReorderStep{.stage = 4, .order = {0, 2, 1, 3, 4, 5, 6, 7}}, // n h.0 k h.1 w ...
      ComputeAtStep{.stage = 3, .targetStage = 4, .targetIterator = 1},
      ComputeAtStep{.stage = 0, .targetStage = 4, .targetIterator = 2},
      AnnotationStep{.stage = 3, .iterator = 3, .annotation = Annotation::Vectorize}};
  const State state = replay(test.workload, steps);
  EXPECT_EQ(stageNames(state),
            (std::vector<std::string>{"W.local", "X.local", "pad", "pad.local", "conv"}));
  const std::string text = lowered(test.workload, state);
  // Rows h.0·4 .. h.0·4 + 5 of the padded input (6 rows of 8, 3 channels); one filter's weights.
  EXPECT_TRUE(containsInOrder(text, {"for conv.i2.0", "allocate pad.local: float32[144]",
                                     "for conv.i1", "allocate W.local: float32[27]"}))
      << text;
  EXPECT_TRUE(matchesReference(test, state));
  EXPECT_TRUE(matchesInterpreter(test.workload, state));
  // The padding inlined into the copy: the copy tests the border itself.
  steps.push_back(ComputeInlineStep{.stage = 2});
  EXPECT_TRUE(matchesInterpreter(test.workload, replay(test.workload, steps)));
}

TEST(ScheduleCacheRead, CompiledPackedGemmMatchesTheReference) {
  const TestWorkload test = matmul(18, 40, 29);
  std::vector<Step> steps = packedGemm();
  steps.push_back(AnnotationStep{.stage = 2, .iterator = 0, .annotation = Annotation::Parallel});
  steps.push_back(AnnotationStep{.stage = 2, .iterator = 3, .annotation = Annotation::Unroll});
  const State state = replay(test.workload, steps);
  EXPECT_TRUE(compiledMatchesInterpreter(test.workload, state, "cache_read_matmul", {18, 40}, 3));
}

// The point of the step: the packed panel is read at unit stride, so the tile's loads of it and
// the copy's stores are plain vector accesses (no gather), and the 8 KiB panel stays on the
// stack (64-byte aligned), allocated once per column tile.
TEST(ScheduleCacheRead, TheCompiledTileReadsThePanelWithVectorLoads) {
  const TestWorkload test = matmul(64, 64, 64);
  const State state =
      replay(test.workload,
             {cacheReadOfInput(1, {0}), SplitStep{.stage = 1, .iterator = 0, .factors = {8}},
              SplitStep{.stage = 1, .iterator = 2, .factors = {32}},
              ReorderStep{.stage = 1, .order = {2, 0, 4, 1, 3}}, // j.0 i.0 k i.1 j.1
              ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = 0},
              AnnotationStep{.stage = 0, .iterator = 1, .annotation = Annotation::Vectorize},
              AnnotationStep{.stage = 1, .iterator = 3, .annotation = Annotation::Unroll},
              AnnotationStep{.stage = 1, .iterator = 4, .annotation = Annotation::Vectorize}});
  const te::LoweredFunction function = lower(test.workload, state, "panel");
  EXPECT_TRUE(containsInOrder(te::toString(function),
                              {"for C.i1.0", "allocate B.local: float32[2048]", "for C.i0.0"}))
      << te::toString(function);
  const std::string ir =
      clustune::codegen::emitLlvmIr(function, clustune::codegen::testing::host());
  EXPECT_EQ(ir.find("masked.gather"), std::string::npos) << ir;
  EXPECT_NE(ir.find("alloca [2048 x float], align 64"), std::string::npos) << ir;
  EXPECT_TRUE(matchesReference(test, state));
}

} // namespace
