// Tests of dataset/Campaign.h on small real tasks, measured by the real worker: a campaign
// reaches its per-task count, resumes without measuring a schedule twice, splits into shards
// that add up to one run, honours its time budget and skips a task it cannot sample.
#include "dataset/Campaign.h"

#include "MeasureTestSupport.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <set>

namespace clustune::dataset {
namespace {

using measure::testing::addReluTask;
using measure::testing::host;
using measure::testing::matmulTask;

std::vector<graph::Task> tasks() {
  graph::Task broken = addReluTask(4, 8);
  broken.nodes[1].op = "NoSuchOperator";
  broken.key = graph::computeTaskKey(broken);
  return {matmulTask(8, 16, 8), broken, addReluTask(4, 64)};
}

CampaignOptions options(int perTask) {
  return CampaignOptions{.perTask = perTask,
                         .seed = 5,
                         .sampling = {.cores = 2, .vectorLanes = host().vectorBits / 32},
                         .batchSize = 4,
                         .target = "test"};
}

class CampaignTest : public ::testing::Test {
protected:
  void SetUp() override {
    directory_ =
        std::filesystem::temp_directory_path() / ("campaign-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(directory_);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  std::string path(const std::string& name) const { return (directory_ / name).string(); }

  CampaignSummary run(const std::string& output, const CampaignOptions& campaignOptions) {
    measure::Measurer measurer(
        host(), {.runner = measure::testing::quickRunnerOptions(), .buildParallelism = 2});
    MeasuredIndex index = indexRecords(output);
    measure::RecordAppender appender(output);
    return runCampaign(tasks(), measurer, appender, index, campaignOptions);
  }

  // (task, schedule) of every record, the identity of a measurement.
  static std::multiset<std::string> measured(const std::string& output) {
    std::multiset<std::string> identities;
    measure::readRecords(output, [&](measure::Record&& record, const ErrorContext&) {
      identities.insert(record.task + " " + schedule::scheduleText(record.schedule));
    });
    return identities;
  }

  std::filesystem::path directory_;
};

TEST_F(CampaignTest, EachTaskGetsItsValidRecordsAndAnUnsampleableTaskIsSkipped) {
  const CampaignSummary summary = run(path("records.jsonl"), options(3));
  EXPECT_EQ(summary.tasks, 3);
  EXPECT_EQ(summary.tasksSkipped, 1);
  EXPECT_EQ(summary.tasksComplete + summary.tasksExhausted, 2);
  EXPECT_EQ(summary.stoppedBy, "");
  const MeasuredIndex index = indexRecords(path("records.jsonl"));
  EXPECT_EQ(index.at(tasks()[0].key).valid, 3);
  EXPECT_TRUE(summary.errors.empty()); // sampled schedules of tiny tasks all run correctly
  EXPECT_EQ(summary.valid, summary.records);
  EXPECT_EQ(summary.records, static_cast<std::int64_t>(measured(path("records.jsonl")).size()));
}

TEST_F(CampaignTest, RecordsReproduceTheirSchedulesFromSeedAndIndex) {
  run(path("records.jsonl"), options(3));
  const std::vector<graph::Task> all = tasks();
  int checked = 0;
  measure::readRecords(path("records.jsonl"), [&](measure::Record&& record, const ErrorContext&) {
    const graph::Task& task = record.task == all[0].key ? all[0] : all[2];
    EXPECT_EQ(record.sampleSeed, taskSampleSeed(5, task.key));
    const auto samples =
        search::sample(task, record.sampleIndex + 1, record.sampleSeed, options(3).sampling);
    ASSERT_EQ(static_cast<int>(samples.size()), record.sampleIndex + 1);
    EXPECT_EQ(samples.back(), record.schedule);
    EXPECT_EQ(record.target, "test");
    ++checked;
  });
  EXPECT_GE(checked, 3);
}

TEST_F(CampaignTest, AResumedRunMeasuresOnlyWhatIsMissing) {
  run(path("records.jsonl"), options(2));
  const auto first = measured(path("records.jsonl"));
  const CampaignSummary again = run(path("records.jsonl"), options(2));
  EXPECT_EQ(again.records, 0);
  EXPECT_EQ(again.tasksComplete, 2);

  const CampaignSummary more = run(path("records.jsonl"), options(4));
  EXPECT_GT(more.records, 0);
  const auto resumed = measured(path("records.jsonl"));
  EXPECT_EQ(std::set<std::string>(resumed.begin(), resumed.end()).size(), resumed.size())
      << "a schedule was measured twice";

  run(path("direct.jsonl"), options(4));
  EXPECT_EQ(resumed, measured(path("direct.jsonl")));
}

TEST_F(CampaignTest, ShardsAddUpToOneRun) {
  CampaignOptions first = options(2), second = options(2);
  first.shard = {.index = 0, .count = 2};
  second.shard = {.index = 1, .count = 2};
  EXPECT_EQ(run(path("shard0.jsonl"), first).tasks, 2);
  EXPECT_EQ(run(path("shard1.jsonl"), second).tasks, 1);
  run(path("whole.jsonl"), options(2));
  auto shards = measured(path("shard0.jsonl"));
  const auto other = measured(path("shard1.jsonl"));
  shards.insert(other.begin(), other.end());
  EXPECT_EQ(shards, measured(path("whole.jsonl")));
}

TEST_F(CampaignTest, AnExhaustedBudgetStartsNothing) {
  CampaignOptions limited = options(3);
  limited.timeBudgetSeconds = 1e-9;
  const CampaignSummary summary = run(path("records.jsonl"), limited);
  EXPECT_EQ(summary.stoppedBy, "time_budget");
  EXPECT_EQ(summary.records, 0);
}

TEST_F(CampaignTest, TheRecordLimitCountsWhatTheOutputHeld) {
  CampaignOptions firstRun = options(3);
  firstRun.maxRecords = 2;
  const CampaignSummary first = run(path("records.jsonl"), firstRun);
  EXPECT_EQ(first.records, 2);
  EXPECT_EQ(first.stoppedBy, "max_records");
  firstRun.maxRecords = 5;
  const CampaignSummary second = run(path("records.jsonl"), firstRun);
  EXPECT_EQ(second.records, 3);
  EXPECT_EQ(second.stoppedBy, "max_records");
  EXPECT_EQ(measured(path("records.jsonl")).size(), 5u);
}

TEST_F(CampaignTest, BadOptionsAreErrors) {
  EXPECT_THROW(run(path("records.jsonl"), options(0)), Error);
  CampaignOptions noBatch = options(1);
  noBatch.batchSize = 0;
  EXPECT_THROW(run(path("records.jsonl"), noBatch), Error);
}

} // namespace
} // namespace clustune::dataset
