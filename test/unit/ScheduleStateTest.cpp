// The schedule State and its Steps (lib/schedule/State.h, Step.h): what each step does to a
// stage's iterators and compute location, that illegal steps are rejected with their reason,
// that compute_at follows its target iterator through later steps, and that steps survive a
// JSON round trip exactly, so that a replayed schedule lowers to the same program.
#include "ScheduleTestSupport.h"
#include "schedule/Lower.h"
#include "schedule/State.h"
#include "support/Error.h"

#include <gtest/gtest.h>

using namespace clustune::schedule;
using namespace clustune::schedule::testing;
using clustune::Error;

namespace {

std::vector<std::string> loopNames(const Stage& stage) {
  std::vector<std::string> names;
  for (std::size_t position = 0; position < stage.loops.size(); ++position)
    names.push_back(stage.loop(position).name);
  return names;
}

std::vector<std::int64_t> loopExtents(const Stage& stage) {
  std::vector<std::int64_t> extents;
  for (std::size_t position = 0; position < stage.loops.size(); ++position)
    extents.push_back(stage.loop(position).extent);
  return extents;
}

// The reason of the InvalidScheduleError that applying `step` after `before` raises.
std::string rejection(const Workload& workload, const std::vector<Step>& before, const Step& step) {
  const State state = replay(workload, before);
  try {
    applyStep(state, step);
  } catch (const InvalidScheduleError& error) {
    EXPECT_EQ(error.stepIndex(), before.size());
    EXPECT_NE(
        std::string(error.what())
            .find("invalid schedule: step " + std::to_string(before.size()) + " " + toString(step)),
        std::string::npos)
        << error.what();
    return error.reason();
  }
  return "(accepted)";
}

TEST(ScheduleState, InitialStateHasSpatialAxesThenReduceAxesAtRoot) {
  const TestWorkload test = matmul(8, 32, 16);
  const State state = initialState(test.workload);
  ASSERT_EQ(state.stages().size(), 1u);
  const Stage& stage = state.stages()[0];
  EXPECT_EQ(loopNames(stage), (std::vector<std::string>{"C.i0", "C.i1", "k"}));
  EXPECT_EQ(loopExtents(stage), (std::vector<std::int64_t>{8, 32, 16}));
  EXPECT_EQ(stage.loop(0).kind, IteratorKind::Spatial);
  EXPECT_EQ(stage.loop(2).kind, IteratorKind::Reduce);
  EXPECT_EQ(stage.loop(2).origin, IteratorOrigin::Axis);
  EXPECT_EQ(stage.loop(2).axis, 2);
  EXPECT_EQ(stage.location.kind, ComputeLocationKind::Root);
  EXPECT_EQ(stage.outputIndex, 0);
  EXPECT_TRUE(state.steps().empty());
}

TEST(ScheduleState, SplitCreatesPartsOutermostFirstAndRecordsTheRelation) {
  const TestWorkload test = matmul(8, 32, 10);
  State state = applyStep(initialState(test.workload),
                          SplitStep{.stage = 0, .iterator = 1, .factors = {4, 2}});
  // 10 does not divide by 3: ceil(10 / 3) = 4 outer iterations.
  state = applyStep(state, SplitStep{.stage = 0, .iterator = 4, .factors = {3}});
  const Stage& stage = state.stages()[0];
  EXPECT_EQ(loopNames(stage),
            (std::vector<std::string>{"C.i0", "C.i1.0", "C.i1.1", "C.i1.2", "k.0", "k.1"}));
  EXPECT_EQ(loopExtents(stage), (std::vector<std::int64_t>{8, 4, 4, 2, 4, 3}));
  ASSERT_EQ(stage.relations.size(), 2u);
  EXPECT_EQ(stage.relations[0].kind, IteratorRelation::Kind::Split);
  EXPECT_EQ(stage.relations[0].inputs, std::vector<int>{1});
  EXPECT_EQ(stage.relations[0].factors, (std::vector<std::int64_t>{4, 2}));
  EXPECT_EQ(stage.loop(1).origin, IteratorOrigin::SplitPart);
  EXPECT_EQ(stage.loop(4).kind, IteratorKind::Reduce);
  EXPECT_EQ(state.steps().size(), 2u);
}

TEST(ScheduleState, FuseMultipliesExtentsAndReorderPermutesLoops) {
  const TestWorkload test = paddedConvolution(2, 4, 5, 6);
  State state =
      applyStep(initialState(test.workload), FuseStep{.stage = 1, .iterators = {0, 1, 2}});
  const Stage& fused = state.stages()[1];
  EXPECT_EQ(loopNames(fused)[0], "conv.i0@conv.i1@conv.i2");
  EXPECT_EQ(loopExtents(fused), (std::vector<std::int64_t>{20, 6, 2, 3, 3}));
  EXPECT_EQ(fused.loop(0).origin, IteratorOrigin::Fused);
  state = applyStep(state, ReorderStep{.stage = 1, .order = {2, 0, 3, 1, 4}});
  EXPECT_EQ(loopNames(state.stages()[1]),
            (std::vector<std::string>{"rc", "conv.i0@conv.i1@conv.i2", "rh", "conv.i3", "rw"}));
  state = applyStep(state,
                    AnnotationStep{.stage = 1, .iterator = 3, .annotation = Annotation::Vectorize});
  state = applyStep(state, PragmaStep{.stage = 1, .iterator = 0, .autoUnrollMaxStep = 64});
  EXPECT_EQ(state.stages()[1].loop(3).annotation, Annotation::Vectorize);
  EXPECT_EQ(state.stages()[1].autoUnrollMaxStep, 64);
}

TEST(ScheduleState, StepsAreKeptAndReplayReproducesTheState) {
  const TestWorkload test = softmax(4, 16);
  const std::vector<Step> steps = {
      ComputeInlineStep{.stage = 1}, SplitStep{.stage = 3, .iterator = 1, .factors = {8}},
      AnnotationStep{.stage = 3, .iterator = 2, .annotation = Annotation::Vectorize},
      AnnotationStep{.stage = 0, .iterator = 0, .annotation = Annotation::Parallel}};
  State state = initialState(test.workload);
  for (const Step& step : steps)
    state = applyStep(state, step);
  EXPECT_EQ(state.steps(), steps);
  EXPECT_EQ(toString(replay(test.workload, steps)), toString(state));
  EXPECT_EQ(toString(state), "M: root\n"
                             "  for M.i0 (4) parallel\n"
                             "  for k1 (16) reduce\n"
                             "E: inlined\n"
                             "S: root\n"
                             "  for S.i0 (4)\n"
                             "  for k2 (16) reduce\n"
                             "Y: root, output 0\n"
                             "  for Y.i0 (4)\n"
                             "  for Y.i1.0 (2)\n"
                             "  for Y.i1.1 (8) vectorize\n");
}

TEST(ScheduleState, IllegalStepsAreRejectedWithTheirReason) {
  const Workload chain = elementwiseChain(4, 6).workload;
  const Workload product = matmul(8, 8, 8).workload;
  const Workload conv = paddedConvolution(2, 2, 4, 4).workload;
  const Workload softmaxRows = softmax(2, 8).workload;
  EXPECT_EQ(
      rejection(product, {},
                AnnotationStep{.stage = 0, .iterator = 2, .annotation = Annotation::Vectorize}),
      "cannot vectorize reduce iterator 'k'");
  EXPECT_EQ(
      rejection(product, {},
                AnnotationStep{.stage = 0, .iterator = 2, .annotation = Annotation::Parallel}),
      "cannot parallelize reduce iterator 'k' (iterations would race on the output)");
  EXPECT_EQ(
      rejection(product, {},
                AnnotationStep{.stage = 0, .iterator = 2, .annotation = Annotation::ThreadIdxY}),
      "cannot bind reduce iterator 'k' to threadIdx.y (threads would race on the output; only "
      "threadIdx.x, a cross-thread reduction, combines them)");
  // threadIdx.x on a reduce iterator is a cross-thread reduction: the block's threads are its.
  EXPECT_EQ(
      rejection(product,
                {AnnotationStep{.stage = 0, .iterator = 2, .annotation = Annotation::ThreadIdxX}},
                AnnotationStep{.stage = 0, .iterator = 1, .annotation = Annotation::ThreadIdxY}),
      "stage 'C' cannot bind both 'k' and 'C.i1' to threads: a cross-thread reduction takes the "
      "block's threads for its reduce iterator alone");
  EXPECT_EQ(
      rejection(product,
                {AnnotationStep{.stage = 0, .iterator = 1, .annotation = Annotation::VThread}},
                AnnotationStep{.stage = 0, .iterator = 2, .annotation = Annotation::ThreadIdxX}),
      "stage 'C' cannot bind both 'C.i1' and 'k' to threads: a cross-thread reduction takes the "
      "block's threads for its reduce iterator alone");
  EXPECT_EQ(
      rejection(product,
                {AnnotationStep{.stage = 0, .iterator = 2, .annotation = Annotation::ThreadIdxX}},
                AnnotationStep{.stage = 0, .iterator = 0, .annotation = Annotation::BlockIdxX}),
      "(accepted)");
  EXPECT_EQ(
      rejection(product,
                {AnnotationStep{.stage = 0, .iterator = 0, .annotation = Annotation::BlockIdxX}},
                AnnotationStep{.stage = 0, .iterator = 1, .annotation = Annotation::BlockIdxX}),
      "stage 'C' already binds iterator 'C.i0' to blockIdx.x");
  EXPECT_EQ(rejection(product, {}, SplitStep{.stage = 0, .iterator = 0, .factors = {0}}),
            "split factor must be positive, got 0");
  EXPECT_EQ(rejection(product, {}, SplitStep{.stage = 0, .iterator = 0, .factors = {-2}}),
            "split factor must be positive, got -2");
  EXPECT_EQ(rejection(product, {}, SplitStep{.stage = 0, .iterator = 0, .factors = {4, 4}}),
            "the factors' product exceeds the extent 8 of iterator 'C.i0'");
  EXPECT_EQ(rejection(product, {}, SplitStep{.stage = 0, .iterator = 0, .factors = {}}),
            "split needs at least one factor");
  EXPECT_EQ(rejection(product, {}, SplitStep{.stage = 0, .iterator = 3, .factors = {2}}),
            "iterator 3 does not exist (stage 'C' has 3 iterators)");
  EXPECT_EQ(rejection(product, {}, SplitStep{.stage = 1, .iterator = 0, .factors = {2}}),
            "stage 1 does not exist (the workload has 1 stages)");
  EXPECT_EQ(rejection(product, {}, FuseStep{.stage = 0, .iterators = {0, 2}}),
            "iterators 0 and 2 are not adjacent");
  EXPECT_EQ(rejection(product, {}, FuseStep{.stage = 0, .iterators = {1, 2}}),
            "cannot fuse spatial and reduce iterators ('C.i1', 'k')");
  EXPECT_EQ(
      rejection(product,
                {AnnotationStep{.stage = 0, .iterator = 0, .annotation = Annotation::Parallel}},
                FuseStep{.stage = 0, .iterators = {0, 1}}),
      "cannot fuse annotated iterator 'C.i0'");
  EXPECT_EQ(rejection(product, {}, ReorderStep{.stage = 0, .order = {0, 0, 1}}),
            "order must list each of the 3 iterators exactly once");
  EXPECT_EQ(rejection(product, {}, ReorderStep{.stage = 0, .order = {1, 0}}),
            "order must list each of the 3 iterators exactly once");
  EXPECT_EQ(rejection(chain, {}, ComputeInlineStep{.stage = 2}),
            "cannot inline output stage 'Out'");
  EXPECT_EQ(rejection(softmaxRows, {}, ComputeInlineStep{.stage = 0}),
            "cannot inline reduction stage 'M'");
  EXPECT_EQ(rejection(chain, {ComputeInlineStep{.stage = 1}},
                      SplitStep{.stage = 1, .iterator = 0, .factors = {2}}),
            "stage 'T2' is inlined");
  EXPECT_EQ(rejection(chain, {}, PragmaStep{.stage = 0, .iterator = 0, .autoUnrollMaxStep = -1}),
            "auto_unroll_max_step must not be negative, got -1");
  EXPECT_EQ(rejection(conv, {}, ComputeAtStep{.stage = 1, .targetStage = 0, .targetIterator = 0}),
            "cannot compute output stage 'conv' at another stage");
  EXPECT_EQ(rejection(conv, {}, ComputeAtStep{.stage = 0, .targetStage = 0, .targetIterator = 0}),
            "cannot compute stage 'pad' at itself");
  EXPECT_EQ(rejection(conv, {}, ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = 7}),
            "iterator 7 does not exist (stage 'conv' has 7 iterators)");
  // E is read by S and by Y: no single loop can compute it for both.
  EXPECT_EQ(
      rejection(softmaxRows, {}, ComputeAtStep{.stage = 1, .targetStage = 2, .targetIterator = 0}),
      "stage 'E' is read by 'S', 'Y', so it can only be computed at its single consumer");
  // T1 is read by T2 only, not by Out, until T2 is inlined.
  EXPECT_EQ(rejection(chain, {}, ComputeAtStep{.stage = 0, .targetStage = 2, .targetIterator = 0}),
            "stage 'T1' is read by 'T2', so it can only be computed at its single consumer");
  EXPECT_EQ(rejection(chain, {ComputeInlineStep{.stage = 1}},
                      ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = 0}),
            "target stage 'T2' is inlined");
  EXPECT_EQ(rejection(conv, {ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = 3}},
                      ComputeInlineStep{.stage = 1}),
            "cannot inline output stage 'conv'");
  EXPECT_EQ(rejection(chain, {ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = 1}},
                      ComputeInlineStep{.stage = 1}),
            "cannot inline stage 'T2': 'T1' computed at it");
  // With T2 inlined, Out is T1's only consumer; taking T2 out again would leave T1's values,
  // computed inside Out's loops, out of T2's reach.
  const std::vector<Step> t1InsideOut = {
      ComputeInlineStep{.stage = 1},
      ComputeAtStep{.stage = 0, .targetStage = 2, .targetIterator = 1}};
  EXPECT_EQ(rejection(chain, t1InsideOut, ComputeRootStep{.stage = 1}),
            "stage 'T1' is computed at 'Out' but would be read by 'T2'");
  EXPECT_EQ(rejection(chain, t1InsideOut,
                      ComputeAtStep{.stage = 1, .targetStage = 2, .targetIterator = 0}),
            "stage 'T1' is computed at 'Out' but would be read by 'T2'");
}

TEST(ScheduleState, ARejectedStepLeavesTheStateUnchanged) {
  const TestWorkload test = matmul(8, 8, 8);
  const State before =
      applyStep(initialState(test.workload), SplitStep{.stage = 0, .iterator = 0, .factors = {2}});
  EXPECT_THROW(applyStep(before, FuseStep{.stage = 0, .iterators = {0, 2}}), InvalidScheduleError);
  EXPECT_EQ(before.steps().size(), 1u);
  EXPECT_EQ(loopExtents(before.stages()[0]), (std::vector<std::int64_t>{4, 2, 8, 8}));
}

TEST(ScheduleState, ComputeAtFollowsItsTargetIteratorThroughLaterSteps) {
  const TestWorkload test = paddedConvolution(2, 2, 4, 8);
  State state = applyStep(initialState(test.workload),
                          ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = 2});
  auto target = [&] {
    const Stage& conv = state.stages()[1];
    return conv.iterators[state.stages()[0].location.targetIterator].name;
  };
  EXPECT_EQ(target(), "conv.i2");
  // Reordering carries the attachment with the iterator, not with the position.
  state = applyStep(state, ReorderStep{.stage = 1, .order = {0, 1, 3, 2, 4, 5, 6}});
  EXPECT_EQ(target(), "conv.i2");
  EXPECT_EQ(state.stages()[1].loopPosition(state.stages()[0].location.targetIterator), 3);
  // Splitting moves it to the innermost part, fusing to the fused iterator.
  state = applyStep(state, SplitStep{.stage = 1, .iterator = 3, .factors = {2}});
  EXPECT_EQ(target(), "conv.i2.1");
  state = applyStep(state, FuseStep{.stage = 1, .iterators = {3, 4}});
  EXPECT_EQ(target(), "conv.i2.0@conv.i2.1");
  state = applyStep(state, ComputeRootStep{.stage = 0});
  EXPECT_EQ(state.stages()[0].location.kind, ComputeLocationKind::Root);
}

TEST(ScheduleState, EffectiveConsumersLookThroughInlinedStages) {
  const TestWorkload test = softmax(2, 8);
  State state = initialState(test.workload);
  EXPECT_EQ(effectiveConsumers(state, 0), std::vector<int>{1});
  EXPECT_EQ(effectiveProducers(state, 3), (std::vector<int>{1, 2}));
  state = applyStep(state, ComputeInlineStep{.stage = 1});
  // With E inlined, S and Y read M (and X) directly.
  EXPECT_EQ(effectiveConsumers(state, 0), (std::vector<int>{2, 3}));
  EXPECT_EQ(effectiveProducers(state, 3), (std::vector<int>{0, 2}));
}

// One step of every kind, with non-default values in every field.
std::vector<Step> oneOfEach() {
  return {SplitStep{.stage = 2, .iterator = 1, .factors = {8, 4}},
          FuseStep{.stage = 1, .iterators = {0, 1, 2}},
          ReorderStep{.stage = 0, .order = {2, 0, 1}},
          AnnotationStep{.stage = 3, .iterator = 2, .annotation = Annotation::Vectorize},
          AnnotationStep{.stage = 3, .iterator = 0, .annotation = Annotation::Parallel},
          AnnotationStep{.stage = 3, .iterator = 1, .annotation = Annotation::Unroll},
          AnnotationStep{.stage = 3, .iterator = 1, .annotation = Annotation::None},
          ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = 3},
          ComputeInlineStep{.stage = 4},
          ComputeRootStep{.stage = 5},
          PragmaStep{.stage = 1, .iterator = 0, .autoUnrollMaxStep = 512}};
}

TEST(ScheduleStepJson, EveryStepRoundTripsThroughJsonText) {
  for (const Step& step : oneOfEach()) {
    const std::string text = toJson(step).dump();
    const Step back = stepFromJson(nlohmann::json::parse(text));
    EXPECT_EQ(back, step) << text;
    EXPECT_EQ(toJson(back).dump(), text);
  }
  const std::vector<Step> steps = oneOfEach();
  EXPECT_EQ(stepsFromJson(nlohmann::ordered_json::parse(toJson(steps).dump())), steps);
}

TEST(ScheduleStepJson, ScheduleTextIsTheJsonDump) {
  std::vector<Step> steps = oneOfEach();
  steps.push_back(CacheWriteStep{.stage = 2});
  steps.push_back(CacheReadStep{.stage = -1, .input = 1, .scope = "global", .readers = {3, 4}});
  steps.push_back(CacheWriteStep{.stage = 0, .scope = "quote\" back\\ tab\t \u00e9"});
  steps.push_back(RfactorStep{.stage = 1, .iterator = 2, .factorIteratorPosition = 1});
  steps.push_back(SplitStep{.stage = 0, .iterator = 1, .factors = {-1, INT64_MAX, INT64_MIN}});
  steps.push_back(FuseStep{.stage = 0, .iterators = {}});
  EXPECT_EQ(scheduleText(steps), toJson(steps).dump());
  EXPECT_EQ(scheduleText({}), "[]");
  for (const Step& step : steps)
    EXPECT_EQ(scheduleText({step}), toJson(std::vector<Step>{step}).dump());
}

TEST(ScheduleStepJson, JsonFieldsHaveAFixedOrder) {
  EXPECT_EQ(toJson(Step{SplitStep{.stage = 2, .iterator = 0, .factors = {8, 4}}}).dump(),
            R"({"step":"split","stage":2,"iterator":0,"factors":[8,4]})");
  EXPECT_EQ(toJson(Step{ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = 3}}).dump(),
            R"({"step":"compute_at","stage":0,"target_stage":1,"target_iterator":3})");
  EXPECT_EQ(
      toJson(Step{AnnotationStep{.stage = 1, .iterator = 2, .annotation = Annotation::Vectorize}})
          .dump(),
      R"({"step":"annotate","stage":1,"iterator":2,"annotation":"vectorize"})");
  EXPECT_EQ(toJson(Step{PragmaStep{.stage = 1, .iterator = 0, .autoUnrollMaxStep = 16}}).dump(),
            R"({"step":"pragma","stage":1,"iterator":0,"auto_unroll_max_step":16})");
}

TEST(ScheduleStepJson, ThreadBindingsUseTvmsThreadTagNames) {
  const std::pair<Annotation, const char*> bindings[] = {
      {Annotation::BlockIdxX, "blockIdx.x"},   {Annotation::BlockIdxY, "blockIdx.y"},
      {Annotation::BlockIdxZ, "blockIdx.z"},   {Annotation::VThread, "vthread"},
      {Annotation::ThreadIdxX, "threadIdx.x"}, {Annotation::ThreadIdxY, "threadIdx.y"},
      {Annotation::ThreadIdxZ, "threadIdx.z"}};
  for (const auto& [annotation, name] : bindings) {
    const Step step = AnnotationStep{.stage = 0, .iterator = 1, .annotation = annotation};
    const std::string text =
        std::string(R"({"step":"annotate","stage":0,"iterator":1,"annotation":")") + name + "\"}";
    EXPECT_EQ(toJson(step).dump(), text);
    EXPECT_EQ(stepFromJson(nlohmann::json::parse(text)), step);
    EXPECT_TRUE(isThreadBinding(annotation));
  }
  EXPECT_FALSE(isThreadBinding(Annotation::Parallel));
}

TEST(ScheduleStepJson, MalformedStepsAreErrorsNamingTheField) {
  auto message = [](const std::string& text) -> std::string {
    try {
      stepFromJson(nlohmann::json::parse(text));
    } catch (const Error& error) {
      return error.what();
    }
    return "(accepted)";
  };
  EXPECT_EQ(message(R"({"step":"split","stage":0,"iterator":1})"),
            "schedule step 'split': missing field 'factors'");
  EXPECT_EQ(message(R"({"step":"split","stage":0,"iterator":1.5,"factors":[2]})"),
            "schedule step 'split': field 'iterator' must be an integer");
  EXPECT_EQ(message(R"({"step":"split","stage":0,"iterator":1,"factors":[2.0]})"),
            "schedule step 'split': field 'factors' must be an array of integers");
  EXPECT_EQ(message(R"({"step":"fuse","stage":0,"iterators":[0,1],"extra":1})"),
            "schedule step 'fuse': unknown field 'extra'");
  EXPECT_EQ(message(R"({"step":"annotate","stage":0,"iterator":0,"annotation":"simd"})"),
            "schedule step 'annotate': unknown annotation 'simd'");
  EXPECT_EQ(message(R"({"step":"tile","stage":0})"), "schedule step: unknown step 'tile'");
  EXPECT_EQ(message(R"({"stage":0})"), "schedule step: missing string field 'step'");
  EXPECT_EQ(message(R"([1, 2])"), "schedule step: expected a JSON object, got array");
  EXPECT_EQ(message(R"({"step":"compute_root","stage":4294967296})"),
            "schedule step 'compute_root': field 'stage' is out of range");
}

TEST(ScheduleStepJson, AScheduleReplayedFromJsonLowersToTheSameProgram) {
  const TestWorkload test = paddedConvolution(3, 4, 6, 8);
  const std::vector<Step> steps = {
      SplitStep{.stage = 1, .iterator = 3, .factors = {4}},
      FuseStep{.stage = 1, .iterators = {0, 1}},
      ReorderStep{.stage = 1, .order = {0, 1, 2, 4, 5, 6, 3}},
      AnnotationStep{.stage = 1, .iterator = 0, .annotation = Annotation::Parallel},
      AnnotationStep{.stage = 1, .iterator = 6, .annotation = Annotation::Vectorize},
      ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = 2},
      PragmaStep{.stage = 1, .iterator = 0, .autoUnrollMaxStep = 16}};
  const State original = replay(test.workload, steps);
  const std::string record = toJson(original.steps()).dump();
  const State replayed = replay(test.workload, stepsFromJson(nlohmann::json::parse(record)));
  EXPECT_EQ(toJson(replayed.steps()).dump(), record);
  EXPECT_EQ(clustune::te::toString(lower(test.workload, replayed, "f")),
            clustune::te::toString(lower(test.workload, original, "f")));
  EXPECT_TRUE(matchesReference(test, replayed));
}

} // namespace
