// The task schedulers (search/TaskScheduler.h): round-robin takes turns; the gradient scheduler
// warms up with one round per task, then follows Ansor's gradient (weight, recent improvement,
// the similar-task cap), and both skip exhausted tasks.
#include "search/TaskScheduler.h"
#include "support/Error.h"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>

using namespace clustune;
using namespace clustune::search;

namespace {

std::vector<ScheduledTask> threeTasks() {
  return {{.weight = 1, .flops = 1e9, .tag = "Conv"},
          {.weight = 10, .flops = 1e9, .tag = "MatMul"},
          {.weight = 1, .flops = 1e6, .tag = "Add"}};
}

TEST(SearchTaskScheduler, NamesParse) {
  EXPECT_EQ(schedulerKindFromName("gradient"), SchedulerKind::Gradient);
  EXPECT_EQ(schedulerKindFromName("round-robin"), SchedulerKind::RoundRobin);
  EXPECT_THROW(schedulerKindFromName("lottery"), Error);
}

TEST(SearchTaskScheduler, RoundRobinTakesTurnsAndSkipsExhaustedTasks) {
  RoundRobinScheduler scheduler(threeTasks());
  Rng rng(0);
  std::vector<int> order;
  for (int round = 0; round < 6; ++round) {
    const int task = scheduler.next(rng);
    order.push_back(task);
    scheduler.recordRound(task, 1.0);
  }
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 0, 1, 2}));
  scheduler.markExhausted(0);
  scheduler.markExhausted(2);
  EXPECT_EQ(scheduler.next(rng), 1);
  scheduler.markExhausted(1);
  EXPECT_EQ(scheduler.next(rng), -1);
}

TEST(SearchTaskScheduler, GradientWarmsUpLargestShareFirstThenFavoursTheHeavyTask) {
  GradientScheduler scheduler(threeTasks(), {});
  Rng rng(0);
  // Default latencies 1, 0.5 and 20 ms: shares 1, 5 and 20 ms (weights 1, 10, 1).
  scheduler.setBest(0, 1e-3);
  scheduler.setBest(1, 0.5e-3);
  scheduler.setBest(2, 20e-3);
  for (int expected : {2, 1, 0}) {
    ASSERT_EQ(scheduler.next(rng), expected);
    scheduler.recordRound(expected, 1e-3);
  }
  // Equal latencies and one round each: the task that occurs 10 times promises 10 times the
  // gain.
  EXPECT_EQ(scheduler.next(rng), 1);
}

TEST(SearchTaskScheduler, GradientMatchesAnsorsFormula) {
  // Two tasks of one kind (same tag, FLOPs in one 1.618 bucket) and one of another.
  std::vector<ScheduledTask> tasks = {{.weight = 2, .flops = 1e9, .tag = "Conv"},
                                      {.weight = 1, .flops = 1.1e9, .tag = "Conv"},
                                      {.weight = 3, .flops = 5e8, .tag = "MatMul"}};
  GradientOptions options{.alpha = 0.2, .beta = 2, .backwardWindow = 3};
  GradientScheduler scheduler(tasks, options);
  // Task 0: five rounds, 10 ms falling to 6 ms; task 1: one round at 1 ms; task 2: one round.
  for (double best : {10e-3, 9e-3, 8e-3, 7e-3, 6e-3})
    scheduler.recordRound(0, best);
  scheduler.recordRound(1, 1e-3);
  scheduler.recordRound(2, 4e-3);
  const std::vector<double> gradients = scheduler.gradients();
  // Task 0: backward = (6 - 9) / 3 ms; forward = min(6 - 6/5, 2 · 1e9 / (1.1e9 / 1)) ms - 6 ms.
  const double backward0 = (6e-3 - 9e-3) / 3;
  const double similarCap = 2 * 1e9 / (1.1e9 / 1e-3);
  const double forward0 = std::min(6e-3 - 6e-3 / 5, similarCap) - 6e-3;
  EXPECT_NEAR(gradients[0], 2 * (0.2 * backward0 + 0.8 * forward0), 1e-12);
  // Task 2: alone in its group, one round: no backward slope, and the next round is expected
  // to take best / rounds off, so forward = (4 - 4/1) - 4 ms.
  EXPECT_NEAR(gradients[2], 3 * 0.8 * -4e-3, 1e-12);
  Rng rng(0);
  EXPECT_EQ(scheduler.next(rng), 2);
}

TEST(SearchTaskScheduler, ATaskWithoutAValidMeasurementStaysFinite) {
  GradientScheduler scheduler(threeTasks(), {});
  Rng rng(1);
  for (int task = 0; task < 3; ++task)
    scheduler.recordRound(task, task == 1 ? std::numeric_limits<double>::infinity() : 1e-3);
  for (double gradient : scheduler.gradients())
    EXPECT_TRUE(std::isfinite(gradient));
  EXPECT_EQ(scheduler.next(rng), 1);
}

TEST(SearchTaskScheduler, GradientEndsWhenEveryTaskIsExhausted) {
  GradientScheduler scheduler(threeTasks(), {});
  Rng rng(0);
  for (int task = 0; task < 3; ++task)
    scheduler.markExhausted(task);
  EXPECT_EQ(scheduler.next(rng), -1);
}

} // namespace
