// See TaskScheduler.h. A task without a valid measurement counts as costing 1e10 s, as in
// Ansor, so that the arithmetic of the gradient stays finite and such a task looks worth a round.
#include "search/TaskScheduler.h"

#include "support/Error.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace clustune::search {
namespace {

constexpr double kNoCost = 1e10;
// Ansor's similarity of tasks: the same tag and ⌊log_1.618(FLOPs)⌋.
constexpr double kFlopsGroupBase = 1.618;

double finiteCost(double seconds) {
  return std::isfinite(seconds) && seconds > 0 ? std::min(seconds, kNoCost) : kNoCost;
}

} // namespace

SchedulerKind schedulerKindFromName(const std::string& name) {
  if (name == "gradient")
    return SchedulerKind::Gradient;
  if (name == "round-robin")
    return SchedulerKind::RoundRobin;
  throw Error("unknown task scheduler '" + name + "' (expected gradient or round-robin)");
}

TaskScheduler::TaskScheduler(std::vector<ScheduledTask> tasks)
    : tasks_(std::move(tasks)), history_(tasks_.size()), best_(tasks_.size(), kNoCost),
      exhausted_(tasks_.size(), false) {}

void TaskScheduler::recordRound(int task, double bestSeconds) {
  setBest(task, bestSeconds);
  history_[static_cast<std::size_t>(task)].push_back(best_[static_cast<std::size_t>(task)]);
}

void TaskScheduler::setBest(int task, double bestSeconds) {
  best_[static_cast<std::size_t>(task)] = finiteCost(bestSeconds);
}

int RoundRobinScheduler::next(Rng&) {
  int chosen = -1;
  for (int task = 0; task < static_cast<int>(taskCount()); ++task)
    if (!exhausted(task) && (chosen < 0 || rounds(task) < rounds(chosen)))
      chosen = task;
  return chosen;
}

GradientScheduler::GradientScheduler(std::vector<ScheduledTask> tasks, GradientOptions options)
    : TaskScheduler(std::move(tasks)), options_(options) {
  std::map<std::pair<std::string, long>, int> groups;
  for (const ScheduledTask& task : tasks_) {
    const long bucket =
        task.flops > 0
            ? static_cast<long>(std::floor(std::log(task.flops) / std::log(kFlopsGroupBase)))
            : -1;
    group_.push_back(
        groups.emplace(std::pair(task.tag, bucket), static_cast<int>(groups.size())).first->second);
  }
}

std::vector<double> GradientScheduler::gradients() const {
  std::vector<int> groupSize(tasks_.size(), 0);
  for (int group : group_)
    ++groupSize[static_cast<std::size_t>(group)];
  std::vector<double> result(tasks_.size(), 0.0);
  for (std::size_t task = 0; task < tasks_.size(); ++task) {
    if (exhausted_[task] || history_[task].empty())
      continue;
    const std::vector<double>& history = history_[task];
    const int rounds = static_cast<int>(history.size());
    const int window = options_.backwardWindow;
    const double backward = rounds - 1 - window >= 0
                                ? (history[static_cast<std::size_t>(rounds - 1)] -
                                   history[static_cast<std::size_t>(rounds - 1 - window)]) /
                                      window
                                : 0.0;
    const double best = best_[task];
    double expected = best - best / rounds;
    if (groupSize[static_cast<std::size_t>(group_[task])] > 1) {
      double bestFlopsPerSecond = 0;
      for (std::size_t other = 0; other < tasks_.size(); ++other)
        if (group_[other] == group_[task])
          bestFlopsPerSecond = std::max(bestFlopsPerSecond, tasks_[other].flops / best_[other]);
      if (bestFlopsPerSecond > 0)
        expected = std::min(expected, options_.beta * tasks_[task].flops / bestFlopsPerSecond);
    }
    const double forward = expected - best;
    result[task] =
        tasks_[task].weight * (options_.alpha * backward + (1 - options_.alpha) * forward);
  }
  return result;
}

int GradientScheduler::next(Rng& rng) {
  // The warm-up pass: every live task gets a round before any gets a second, the largest share
  // of the objective first.
  int warmUp = -1;
  for (int task = 0; task < static_cast<int>(taskCount()); ++task)
    if (!exhausted(task) && rounds(task) == 0 &&
        (warmUp < 0 || share(task) > share(warmUp)))
      warmUp = task;
  if (warmUp >= 0)
    return warmUp;
  std::vector<int> live;
  for (int task = 0; task < static_cast<int>(taskCount()); ++task)
    if (!exhausted(task))
      live.push_back(task);
  if (live.empty())
    return -1;
  const std::vector<double> gradient = gradients();
  const auto [low, high] = std::minmax_element(live.begin(), live.end(), [&](int a, int b) {
    return gradient[static_cast<std::size_t>(a)] < gradient[static_cast<std::size_t>(b)];
  });
  if (gradient[static_cast<std::size_t>(*low)] == gradient[static_cast<std::size_t>(*high)])
    return rng.pick(live);
  return *low;
}

std::unique_ptr<TaskScheduler>
makeTaskScheduler(SchedulerKind kind, std::vector<ScheduledTask> tasks, GradientOptions options) {
  if (kind == SchedulerKind::RoundRobin)
    return std::make_unique<RoundRobinScheduler>(std::move(tasks));
  return std::make_unique<GradientScheduler>(std::move(tasks), options);
}

} // namespace clustune::search
