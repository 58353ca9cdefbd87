// Schedule transfer between sibling tasks (search/ScheduleTransfer.h): sampled schedules of a
// convolution or a matmul, packed operands and cache writes included, transfer to the same
// reduction with a residual addition and back, replay there, compute the recipient's
// reference and keep the donor's tiling of the reduction; tasks whose reductions differ are
// not siblings and do not transfer, nor does a reduction that is the output to one that is not.
// Relatives (the same reductions on other shapes) share a looser key, and a relative's schedules
// adapt to the recipient's extents: they replay, compute its reference, and keep the donor's
// innermost tiles where they divide.
#include "SearchTestSupport.h"
#include "search/Sample.h"
#include "search/ScheduleTransfer.h"

#include <gtest/gtest.h>

using namespace clustune;
using namespace clustune::search;
using namespace clustune::search::testing;

namespace {

// convBiasReluTask with a residual input added before the ReLU (ResNet's block ending).
graph::Task convBiasAddReluTask() {
  graph::Task task = convBiasReluTask();
  task.inputs.push_back({.shape = {1, 8, 10, 10}});
  task.nodes.back() =
      node("Add", {nodeOutput(0), input(3)}, {1, 8, 10, 10}, graph::PatternKind::Broadcast);
  task.nodes.push_back(node("Relu", {nodeOutput(1)}, {1, 8, 10, 10}, graph::PatternKind::ElemWise));
  task.outputs = {nodeOutput(2)};
  return finish(task);
}

// ReLU(MatMul(A[m, k], B[k, n])).
graph::Task matmulReluTask(std::int64_t m, std::int64_t n, std::int64_t k) {
  graph::Task task = matmulTask(m, n, k);
  task.nodes.push_back(node("Relu", {nodeOutput(0)}, {m, n}, graph::PatternKind::ElemWise));
  task.outputs = {nodeOutput(1)};
  return finish(task);
}

// ReLU(MatMul(A[m, k], B[k, n]) + C[m, n]).
graph::Task matmulAddReluTask(std::int64_t m, std::int64_t n, std::int64_t k) {
  graph::Task task = matmulTask(m, n, k);
  task.inputs.push_back({.shape = {m, n}});
  task.nodes.push_back(
      node("Add", {nodeOutput(0), input(2)}, {m, n}, graph::PatternKind::Broadcast));
  task.nodes.push_back(node("Relu", {nodeOutput(1)}, {m, n}, graph::PatternKind::ElemWise));
  task.outputs = {nodeOutput(2)};
  return finish(task);
}

// convBiasReluTask without the ReLU: the bias addition is the output (ResNet's projection).
graph::Task convBiasTask() {
  graph::Task task = convBiasReluTask();
  task.nodes.pop_back();
  task.outputs = {nodeOutput(0)};
  return finish(task);
}

// MatMul(ReLU(A[m, k]), B[k, n]): the same output reduction as matmulTask, after a stage that
// matmulTask lacks, so that every stage index of the donor is one more.
graph::Task reluMatmulTask(std::int64_t m, std::int64_t n, std::int64_t k) {
  graph::Task task = matmulTask(m, n, k);
  task.nodes = {
      node("Relu", {input(0)}, {m, k}, graph::PatternKind::ElemWise),
      node("MatMul", {nodeOutput(0), input(1)}, {m, n}, graph::PatternKind::OutEWiseFusable)};
  task.outputs = {nodeOutput(1)};
  return finish(task);
}

// convBiasReluTask with `in` channels of h×w into `out` channels.
graph::Task resizedConvBiasReluTask(std::int64_t in, std::int64_t out, std::int64_t h,
                                    std::int64_t w) {
  graph::Task task = convBiasReluTask();
  task.inputs[0].shape = {1, in, h, w};
  task.inputs[1].shape = {out, in, 3, 3};
  task.inputs[2].shape = {out};
  for (graph::TaskNode& node : task.nodes)
    node.outputShapes = {{1, out, h, w}};
  return finish(task);
}

bool hasStep(const Steps& steps, auto predicate) {
  return std::any_of(steps.begin(), steps.end(),
                     [&](const schedule::Step& step) { return std::visit(predicate, step); });
}

// What a schedule made of the stages: per stage that is not inlined, its role (the name
// without the node index, or "output"), where it is computed, at which role's stage, and its loops
// with their extents and annotations; sorted. A faithful transfer makes the donor's and the
// recipient's equal when the stages the two do not share are inlined.
std::vector<std::string> loopStructure(const te::Workload& workload, const Steps& steps) {
  // Outputs are named "output": they align whatever their operators.
  auto role = [](const schedule::Stage& stage) {
    return stage.isOutput() ? std::string("output")
                            : stage.tensor->name.substr(stage.tensor->name.find('.') + 1);
  };
  const schedule::State state = schedule::replay(workload, steps);
  std::vector<std::string> result;
  for (const schedule::Stage& stage : state.stages()) {
    if (stage.isInlined())
      continue;
    std::string text = role(stage);
    if (stage.location.kind == schedule::ComputeLocationKind::At) {
      const schedule::Stage& target =
          state.stages()[static_cast<std::size_t>(stage.location.targetStage)];
      text += " at " + role(target) + " loop " +
              std::to_string(target.loopPosition(stage.location.targetIterator));
    }
    for (std::size_t k = 0; k < stage.loops.size(); ++k)
      text += " " + std::to_string(stage.loop(k).extent) +
              schedule::annotationName(stage.loop(k).annotation);
    text += " unroll " + std::to_string(stage.autoUnrollMaxStep);
    result.push_back(text);
  }
  std::sort(result.begin(), result.end());
  return result;
}

// Transfers `count` samples of `from` to `to`; every transferred schedule must replay on `to`
// and compute its reference, and at least `minimumShare` of them must transfer.
void expectSamplesTransfer(const graph::Task& from, const graph::Task& to, int count,
                           double minimumShare) {
  const te::Workload donor = te::lowerTask(from), recipient = te::lowerTask(to);
  ASSERT_EQ(transferKey(donor), transferKey(recipient));
  ASSERT_FALSE(transferKey(donor).empty());
  int transferred = 0;
  for (const Steps& steps : sample(donor, count, 3, {.cores = 2})) {
    const std::optional<Steps> rewritten = transferSchedule(donor, steps, recipient);
    if (!rewritten || !makeCandidate(recipient, *rewritten))
      continue;
    ++transferred;
    EXPECT_TRUE(matchesReference(recipient, *rewritten)) << "from " << json(steps);
    EXPECT_EQ(loopStructure(recipient, *rewritten), loopStructure(donor, steps))
        << json(steps) << "\nbecame\n"
        << json(*rewritten);
  }
  EXPECT_GE(transferred, static_cast<int>(minimumShare * count));
}

TEST(SearchScheduleTransfer, ConvolutionSchedulesTransferToTheResidualBlockEndingAndBack) {
  expectSamplesTransfer(convBiasReluTask(), convBiasAddReluTask(), 40, 0.9);
  expectSamplesTransfer(convBiasAddReluTask(), convBiasReluTask(), 40, 0.9);
}

TEST(SearchScheduleTransfer, TheOutputStagesAlignWhateverTheirOperators) {
  // The projection's output is its bias addition, the block ending's the ReLU.
  expectSamplesTransfer(convBiasTask(), convBiasAddReluTask(), 40, 0.9);
  expectSamplesTransfer(convBiasAddReluTask(), convBiasTask(), 40, 0.9);
}

// Transfers every sample of `from` that `selected` picks and expects at least `minimum` of them,
// each transferring faithfully.
void expectSelectedSamplesTransfer(const graph::Task& from, const graph::Task& to, auto selected,
                                   int minimum) {
  const te::Workload donor = te::lowerTask(from), recipient = te::lowerTask(to);
  ASSERT_EQ(transferKey(donor), transferKey(recipient));
  int transferred = 0;
  for (const Steps& steps : sample(donor, 60, 5, {.cores = 2})) {
    if (!selected(steps))
      continue;
    const std::optional<Steps> rewritten = transferSchedule(donor, steps, recipient);
    ASSERT_TRUE(rewritten) << json(steps);
    ASSERT_TRUE(makeCandidate(recipient, *rewritten)) << json(steps) << "\nbecame\n"
                                                      << json(*rewritten);
    EXPECT_TRUE(matchesReference(recipient, *rewritten));
    EXPECT_EQ(loopStructure(recipient, *rewritten), loopStructure(donor, steps))
        << json(steps) << "\nbecame\n"
        << json(*rewritten);
    ++transferred;
  }
  EXPECT_GE(transferred, minimum);
}

TEST(SearchScheduleTransfer, StagesInsertedByTheScheduleKeepTheirCounterparts) {
  auto packs = [](const Steps& steps) {
    return hasStep(steps, [](const auto& step) {
      return std::is_same_v<std::decay_t<decltype(step)>, schedule::CacheReadStep>;
    });
  };
  auto cachesWrites = [](const Steps& steps) {
    return hasStep(steps, [](const auto& step) {
      return std::is_same_v<std::decay_t<decltype(step)>, schedule::CacheWriteStep>;
    });
  };
  auto rfactors = [](const Steps& steps) {
    return hasStep(steps, [](const auto& step) {
      return std::is_same_v<std::decay_t<decltype(step)>, schedule::RfactorStep>;
    });
  };
  expectSelectedSamplesTransfer(matmulReluTask(32, 48, 64), matmulAddReluTask(32, 48, 64), packs,
                                10);
  // Every donor index is one above the recipient's: the inserted stages must shift the map.
  expectSelectedSamplesTransfer(reluMatmulTask(32, 48, 64), matmulTask(32, 48, 64), cachesWrites,
                                10);
  expectSelectedSamplesTransfer(matmulTask(32, 48, 64), reluMatmulTask(32, 48, 64), packs, 10);
  expectSelectedSamplesTransfer(reluMatmulTask(2, 2, 1024), matmulTask(2, 2, 1024), rfactors, 5);
}

TEST(SearchScheduleTransfer, ACachedStageIsCachedAtItsCounterpart) {
  // Donor stages: tanh 0, relu 1, matmul 2; the recipient's: relu 0, matmul 1.
  graph::Task from = reluMatmulTask(8, 8, 8);
  from.nodes.insert(from.nodes.begin(),
                    node("Tanh", {input(0)}, {8, 8}, graph::PatternKind::ElemWise));
  from.nodes[1].inputs = {nodeOutput(0)};
  from.nodes[2].inputs = {nodeOutput(1), input(1)};
  from.outputs = {nodeOutput(2)};
  from = finish(from);
  const te::Workload donor = te::lowerTask(from);
  const te::Workload recipient = te::lowerTask(reluMatmulTask(8, 8, 8));
  const Steps steps = {schedule::CacheReadStep{.stage = 1, .readers = {2}},
                       schedule::SplitStep{.stage = 3, .iterator = 0, .factors = {4}},
                       schedule::ComputeAtStep{.stage = 2, .targetStage = 3, .targetIterator = 0}};
  ASSERT_TRUE(makeCandidate(donor, steps));
  const std::optional<Steps> rewritten = transferSchedule(donor, steps, recipient);
  ASSERT_TRUE(rewritten);
  EXPECT_EQ(json(*rewritten),
            R"([{"step":"cache_read","stage":0,"input":-1,"scope":"local","readers":[1]},)"
            R"({"step":"split","stage":2,"iterator":0,"factors":[4]},)"
            R"({"step":"compute_at","stage":1,"target_stage":2,"target_iterator":0}])");
  EXPECT_TRUE(matchesReference(recipient, *rewritten));
}

TEST(SearchScheduleTransfer, TheRecipientsOwnElementwiseStagesAreInlined) {
  const te::Workload donor = te::lowerTask(matmulReluTask(8, 8, 8));
  const te::Workload recipient = te::lowerTask(matmulAddReluTask(8, 8, 8));
  // The donor's stages: matmul, relu. The recipient's: matmul, add, relu.
  const std::optional<Steps> rewritten = transferSchedule(donor, {}, recipient);
  ASSERT_TRUE(rewritten);
  EXPECT_EQ(json(*rewritten), R"([{"step":"compute_inline","stage":1}])");
}

TEST(SearchScheduleTransfer, TasksWithOtherReductionsAreNotSiblings) {
  const te::Workload conv3x3 = te::lowerTask(convBiasReluTask());
  const te::Workload conv1x1 = te::lowerTask(conv1x1Task());
  const te::Workload matmul = te::lowerTask(matmulTask(32, 48, 64));
  EXPECT_NE(transferKey(conv3x3), transferKey(conv1x1));
  EXPECT_NE(transferKey(matmul), transferKey(te::lowerTask(matmulTask(32, 48, 32))));
  // An output reduction is scheduled unlike one with an element-wise consumer.
  EXPECT_NE(transferKey(matmul), transferKey(te::lowerTask(matmulReluTask(32, 48, 64))));
  EXPECT_EQ(transferKey(te::lowerTask(addReluTask())), "");
  for (const Steps& steps : sample(conv3x3, 10, 3, {.cores = 2}))
    EXPECT_FALSE(transferSchedule(conv3x3, steps, conv1x1)) << json(steps);
}

TEST(SearchScheduleTransfer, RelativesAreTheSameReductionsOnOtherShapes) {
  const te::Workload small = te::lowerTask(convBiasReluTask());
  const te::Workload large = te::lowerTask(resizedConvBiasReluTask(8, 16, 14, 12));
  EXPECT_NE(transferKey(small), transferKey(large));
  EXPECT_EQ(relativeKey(small), relativeKey(large));
  EXPECT_FALSE(relativeKey(small).empty());
  const te::Workload matmul = te::lowerTask(matmulTask(32, 48, 64));
  EXPECT_EQ(relativeKey(matmul), relativeKey(te::lowerTask(matmulTask(16, 24, 96))));
  EXPECT_NE(relativeKey(matmul), relativeKey(small));
  // An output reduction is scheduled unlike one with an element-wise consumer.
  EXPECT_NE(relativeKey(matmul), relativeKey(te::lowerTask(matmulReluTask(32, 48, 64))));
  EXPECT_EQ(relativeKey(te::lowerTask(addReluTask())), "");
}

// Adapts `count` samples of `from` to `to`: at least `minimumShare` of them must adapt, and
// every adapted schedule must replay on `to` and compute its reference.
void expectSamplesAdapt(const graph::Task& from, const graph::Task& to, int count,
                        double minimumShare) {
  const te::Workload donor = te::lowerTask(from), recipient = te::lowerTask(to);
  ASSERT_EQ(relativeKey(donor), relativeKey(recipient));
  int adapted = 0;
  for (const Steps& steps : sample(donor, count, 3, {.cores = 2})) {
    const std::optional<Steps> rewritten = adaptSchedule(donor, steps, recipient);
    if (!rewritten || !makeCandidate(recipient, *rewritten))
      continue;
    ++adapted;
    EXPECT_TRUE(matchesReference(recipient, *rewritten)) << "from " << json(steps);
  }
  EXPECT_GE(adapted, static_cast<int>(minimumShare * count));
}

TEST(SearchScheduleTransfer, ConvolutionSchedulesAdaptToLargerAndSmallerRelatives) {
  expectSamplesAdapt(convBiasReluTask(), resizedConvBiasReluTask(8, 16, 14, 12), 40, 0.9);
  expectSamplesAdapt(resizedConvBiasReluTask(8, 16, 14, 12), convBiasReluTask(), 40, 0.9);
  // To the residual block ending on other shapes: a sibling's alignment and a relative's fit.
  expectSamplesAdapt(resizedConvBiasReluTask(8, 16, 14, 12), convBiasAddReluTask(), 40, 0.9);
}

TEST(SearchScheduleTransfer, MatmulSchedulesAdaptWithTheirPackedOperands) {
  expectSamplesAdapt(matmulReluTask(32, 48, 64), matmulReluTask(24, 80, 96), 40, 0.9);
  expectSamplesAdapt(matmulTask(64, 64, 64), matmulTask(36, 20, 128), 40, 0.9);
}

TEST(SearchScheduleTransfer, SplitFactorsFitTheRecipientInnermostFirst) {
  // Matmul stages: 0 the product (i, j, k). i: 64 → 48, j: 64 → 20, k: 64 → 128.
  const te::Workload donor = te::lowerTask(matmulTask(64, 64, 64));
  const te::Workload recipient = te::lowerTask(matmulTask(48, 20, 128));
  const Steps steps = {schedule::SplitStep{.stage = 0, .iterator = 2, .factors = {4, 16}},
                       schedule::SplitStep{.stage = 0, .iterator = 1, .factors = {8, 8}},
                       schedule::SplitStep{.stage = 0, .iterator = 0, .factors = {4, 16}}};
  ASSERT_TRUE(makeCandidate(donor, steps));
  const std::optional<Steps> adapted = adaptSchedule(donor, steps, recipient);
  ASSERT_TRUE(adapted);
  // k = 128 keeps [4, 16]; j = 20: 8 → 5, then 4 of the 4 left; i = 48: 16, then 3 of the 3 left.
  EXPECT_EQ(json(*adapted), R"([{"step":"split","stage":0,"iterator":2,"factors":[4,16]},)"
                            R"({"step":"split","stage":0,"iterator":1,"factors":[4,5]},)"
                            R"({"step":"split","stage":0,"iterator":0,"factors":[3,16]}])");
  EXPECT_TRUE(matchesReference(recipient, *adapted));
  // Siblings only: the same steps do not transfer between the two shapes.
  EXPECT_FALSE(transferSchedule(donor, steps, recipient));
}

} // namespace
