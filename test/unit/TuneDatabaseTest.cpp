// The tuning log as database (tune/Database.h) and the tuning loop over it (tune/Tuner.h, with
// real measurement in the worker): reopening counts the earlier trials, rounds and seconds;
// records of another target are refused; a tuning run measures each task's default schedule
// first, never measures a schedule twice, and a second run on the same log resumes it.
#include "MeasureTestSupport.h"
#include "SearchTestSupport.h"
#include "search/EvolutionarySearch.h"
#include "search/RandomCostModel.h"
#include "support/Error.h"
#include "tune/Database.h"
#include "tune/Tuner.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <set>

using namespace clustune;
using namespace clustune::search::testing;

namespace {

const std::string kTarget = "llvm -mcpu=test -threads=2";

std::string temporaryLog(const std::string& name) {
  const auto path =
      std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()) + ".jsonl");
  std::filesystem::remove(path);
  return path.string();
}

measure::Record tuningRecord(const std::string& task, int round, double seconds,
                             std::int64_t factor) {
  return measure::Record{
      .task = task,
      .target = kTarget,
      .schedule = {schedule::SplitStep{.stage = 0, .iterator = 0, .factors = {factor}}},
      .costs = {1e-3},
      .tuneRound = round,
      .tuneSeconds = seconds};
}

TEST(TuneDatabase, ReopeningCountsTheEarlierTrialsRoundsAndSeconds) {
  const std::string path = temporaryLog("tune-database");
  {
    tune::Database database(path, {"aaaa"}, kTarget);
    EXPECT_EQ(database.tuningTrials(), 0);
    EXPECT_EQ(database.lastRound(), -1);
    database.append(tuningRecord("aaaa", 0, 1.5, 2));
    database.append(tuningRecord("aaaa", 1, 7.25, 4));
    database.append(tuningRecord("bbbb", 9, 99, 4)); // another task: kept in the file only
    measure::Record foreign = tuningRecord("aaaa", 0, 0, 8);
    foreign.tuneRound = -1; // e.g. from clustune-measure: measured, but not a tuning trial
    database.append(foreign);
  }
  tune::Database reopened(path, {"aaaa"}, kTarget);
  EXPECT_EQ(reopened.tuningTrials(), 2);
  EXPECT_EQ(reopened.lastRound(), 1);
  EXPECT_DOUBLE_EQ(reopened.elapsedSeconds(), 7.25);
  EXPECT_EQ(reopened.records("aaaa").size(), 3u);
  EXPECT_TRUE(reopened.records("bbbb").empty());
  EXPECT_TRUE(
      reopened.measured("aaaa", schedule::scheduleText(tuningRecord("a", 0, 0, 8).schedule)));
  EXPECT_FALSE(reopened.measured("aaaa", schedule::scheduleText({})));
  std::filesystem::remove(path);
}

TEST(TuneDatabase, RecordsOfAnotherTargetAreRefusedWithTheirLine) {
  const std::string path = temporaryLog("tune-database-target");
  {
    tune::Database database(path, {"aaaa"}, kTarget);
    database.append(tuningRecord("aaaa", 0, 1, 2));
  }
  try {
    tune::Database other(path, {"aaaa"}, "llvm -mcpu=other -threads=2");
    ADD_FAILURE() << "a log of another target was resumed";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find(":1: record of task aaaa was measured on"),
              std::string::npos)
        << error.what();
  }
  EXPECT_THROW(tune::Database("-", {"aaaa"}, kTarget), Error);
  std::filesystem::remove(path);
}

tune::TuneSummary tuneOnce(const std::vector<graph::Task>& tasks, const std::string& path,
                           int trials, int perRound = 4) {
  measure::Measurer measurer(
      measure::testing::host(),
      {.runner = measure::testing::quickRunnerOptions(), .buildParallelism = 2});
  search::RandomCostModel model(1);
  search::EvolutionOptions evolution;
  evolution.population = 32;
  evolution.sampling = {.cores = 2};
  search::EvolutionarySearch strategy(evolution);
  std::vector<search::ScheduledTask> scheduled;
  std::set<std::string> keys;
  for (const graph::Task& task : tasks) {
    scheduled.push_back(
        {.weight = 1, .flops = static_cast<double>(task.flops), .tag = task.anchor});
    keys.insert(task.key);
  }
  const auto scheduler =
      search::makeTaskScheduler(search::SchedulerKind::Gradient, std::move(scheduled));
  tune::Database database(path, keys, kTarget);
  tune::Tuner tuner(tasks, measurer, model, strategy, *scheduler, database,
                    {.trials = trials,
                     .perRound = perRound,
                     .target = kTarget,
                     .defaults = {.cores = 2, .vectorLanes = 8}});
  return tuner.run();
}

TEST(TuneTuner, MeasuresDefaultsFirstNeverTwiceAndResumes) {
  const std::vector<graph::Task> tasks = {matmulTask(16, 24, 32), addReluTask()};
  const std::string path = temporaryLog("tuner");
  const tune::TuneSummary first = tuneOnce(tasks, path, 10);
  EXPECT_EQ(first.trials, 10);
  EXPECT_EQ(first.newTrials, 10);
  EXPECT_EQ(first.stoppedBy, "trials");
  EXPECT_GT(first.defaultSeconds, 0);
  EXPECT_LE(first.estimatedSeconds, first.defaultSeconds);

  const tune::TuneSummary second = tuneOnce(tasks, path, 18);
  EXPECT_EQ(second.trials, 18);
  EXPECT_EQ(second.newTrials, 8);
  EXPECT_GE(second.totalSeconds, first.totalSeconds);

  std::set<std::string> seen;
  int defaults = 0, lastRound = 0;
  measure::readRecords(path, [&](measure::Record&& record, const ErrorContext& context) {
    EXPECT_TRUE(seen.insert(record.task + schedule::scheduleText(record.schedule)).second)
        << "measured twice, line " << *context.line;
    EXPECT_GE(record.tuneRound, lastRound) << "rounds go back at line " << *context.line;
    lastRound = record.tuneRound;
    defaults += record.tuneRound == 0 ? 1 : 0;
  });
  EXPECT_EQ(seen.size(), 18u);
  EXPECT_EQ(defaults, 2);
  std::filesystem::remove(path);
}

// Two matrix products, 26 trials, rounds of 8: each warm-up round measures at most
// 26 / (2 · 2) = 6 candidates, and the 12 trials left after the defaults and the warm-up go to
// rounds of the full size.
TEST(TuneTuner, WarmUpRoundsLeaveHalfOfTheBudgetToTheGradient) {
  const std::vector<graph::Task> tasks = {matmulTask(16, 24, 32), matmulTask(8, 40, 24)};
  const std::string path = temporaryLog("tuner-warm-up");
  EXPECT_EQ(tuneOnce(tasks, path, 26, 8).trials, 26);
  std::map<int, int> perRound;
  measure::readRecords(path, [&](measure::Record&& record, const ErrorContext&) {
    ++perRound[record.tuneRound];
  });
  EXPECT_EQ(perRound[0], 2);
  EXPECT_EQ(perRound[1], 6);
  EXPECT_EQ(perRound[2], 6);
  EXPECT_EQ(perRound[3], 8);
  std::filesystem::remove(path);
}

} // namespace
