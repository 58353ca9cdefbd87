// Which task the next tuning round goes to (DESIGN §7), after Ansor's task scheduler. The
// objective is the model's estimated latency Σ_t w_t · best_t (w_t: the task's occurrences).
//   - round-robin: the live task with the fewest rounds;
//   - gradient (Ansor's default): one warm-up pass over every task, then the task whose next
//     round promises the steepest fall of the objective. Ansor warms up in task order; here the
//     task with the largest share w_t · best_t goes first, so that a budget that ends during
//     the warm-up has been spent where the latency is. After the warm-up,
//         grad_t = w_t · (α · backward_t + (1 − α) · forward_t),
//     where backward_t is the slope of the task's best cost over its last `backwardWindow`
//     rounds and forward_t = min(best_t − best_t / rounds_t, β · flops_t / best_flops_of_similar)
//     − best_t: the task is expected to improve by the share of one more round, capped by what
//     tasks of the same kind (same tag, FLOPs within a factor of 1.618) already reach per FLOP.
// A task the search can give no more candidates is exhausted and gets no more rounds.
#pragma once

#include "support/Random.h"

#include <memory>
#include <string>
#include <vector>

namespace clustune::search {

struct ScheduledTask {
  double weight = 1;    // occurrences in the tuned models
  double flops = 0;     // per occurrence
  std::string tag = {}; // kind of computation (the anchor operator)
};

enum class SchedulerKind { Gradient, RoundRobin };
// "gradient", "round-robin"; throws clustune::Error for another name.
SchedulerKind schedulerKindFromName(const std::string& name);

struct GradientOptions {
  double alpha = 0.2;
  double beta = 2;
  int backwardWindow = 3;
};

class TaskScheduler {
public:
  explicit TaskScheduler(std::vector<ScheduledTask> tasks);
  virtual ~TaskScheduler() = default;

  // The task of the next round, or -1 when every task is exhausted. Ties are broken by `rng`.
  virtual int next(Rng& rng) = 0;

  // A round of `task` ended with `bestSeconds` its best valid cost (+inf while it has none).
  void recordRound(int task, double bestSeconds);
  // The best cost of `task` outside of rounds (a default schedule measured before tuning).
  void setBest(int task, double bestSeconds);
  void markExhausted(int task) { exhausted_[static_cast<std::size_t>(task)] = true; }
  bool exhausted(int task) const { return exhausted_[static_cast<std::size_t>(task)]; }

  int rounds(int task) const {
    return static_cast<int>(history_[static_cast<std::size_t>(task)].size());
  }
  double best(int task) const { return best_[static_cast<std::size_t>(task)]; }
  // The task's part of the objective, w_t · best_t.
  double share(int task) const {
    return tasks_[static_cast<std::size_t>(task)].weight * best(task);
  }
  std::size_t taskCount() const { return tasks_.size(); }

protected:
  std::vector<ScheduledTask> tasks_;
  std::vector<std::vector<double>> history_; // best cost after each round, per task
  std::vector<double> best_;
  std::vector<bool> exhausted_;
};

class RoundRobinScheduler final : public TaskScheduler {
public:
  using TaskScheduler::TaskScheduler;
  int next(Rng& rng) override;
};

class GradientScheduler final : public TaskScheduler {
public:
  GradientScheduler(std::vector<ScheduledTask> tasks, GradientOptions options);
  int next(Rng& rng) override;
  // The gradient of every task as next() computes it (0 for exhausted tasks): for logs and tests.
  std::vector<double> gradients() const;

private:
  GradientOptions options_;
  std::vector<int> group_; // per task, its similarity group
};

std::unique_ptr<TaskScheduler> makeTaskScheduler(SchedulerKind kind,
                                                 std::vector<ScheduledTask> tasks,
                                                 GradientOptions options = {});

} // namespace clustune::search
