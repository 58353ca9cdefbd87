// The naive schedule (schedule/NaiveSchedule.h), the reference of large tasks: each stage's
// outermost spatial loop of more than one iteration is parallel, nothing else changes, and the
// compiled result matches the interpreter.
#include "CompiledScheduleTestSupport.h"
#include "MeasureTestSupport.h"
#include "schedule/NaiveSchedule.h"
#include "te/LowerTask.h"

#include <gtest/gtest.h>

using namespace clustune;
using namespace clustune::schedule;

namespace {

std::vector<AnnotationStep> annotations(const std::vector<Step>& steps) {
  std::vector<AnnotationStep> found;
  for (const Step& step : steps)
    found.push_back(std::get<AnnotationStep>(step));
  return found;
}

} // namespace

TEST(ScheduleNaive, TheOutermostSpatialLoopOfEachStageIsParallel) {
  const te::Workload workload = te::lowerTask(measure::testing::matmulTask(32, 48, 40));
  const std::vector<AnnotationStep> steps = annotations(naiveSchedule(workload));
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].iterator, 0);
  EXPECT_EQ(steps[0].annotation, Annotation::Parallel);
  EXPECT_TRUE(clustune::schedule::testing::compiledMatchesInterpreter(
      workload, replay(workload, naiveSchedule(workload)), "naive_matmul", {32, 48}, 3));
}

TEST(ScheduleNaive, LoopsOfOneIterationAreSkipped) {
  // One row (a batch of one): the columns run in parallel.
  const te::Workload workload = te::lowerTask(measure::testing::matmulTask(1, 48, 40));
  const std::vector<AnnotationStep> steps = annotations(naiveSchedule(workload));
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].iterator, 1);
  EXPECT_TRUE(clustune::schedule::testing::compiledMatchesInterpreter(
      workload, replay(workload, naiveSchedule(workload)), "naive_row", {1, 48}, 5));
}

TEST(ScheduleNaive, AStageWithoutASpatialLoopOfTwoIterationsStaysSerial) {
  // 1 x 1 output: only the reduction has more than one iteration.
  const te::Workload workload = te::lowerTask(measure::testing::matmulTask(1, 1, 40));
  EXPECT_TRUE(naiveSchedule(workload).empty());
}
