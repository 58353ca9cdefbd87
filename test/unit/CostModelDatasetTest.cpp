// Featurising records into the cost models' program dataset (costmodel/ProgramDataset.h), its
// labels, and the within-task and leave-one-model-out splits (costmodel/DatasetSplit.h).
#include "CostModelTestSupport.h"
#include "costmodel/DatasetSplit.h"
#include "costmodel/ProgramDataset.h"
#include "costmodel/TaskTags.h"
#include "schedule/Lower.h"
#include "schedule/State.h"
#include "support/Error.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <set>

using namespace clustune;
using namespace clustune::costmodel;
using costmodel::testing::sampledRecords;
using measure::testing::addReluTask;
using measure::testing::matmulTask;

namespace {

struct Fixture {
  std::vector<graph::Task> tasks = {matmulTask(32, 48, 64), addReluTask(64, 96)};
  std::vector<measure::Record> records;
  Fixture() {
    tasks[1].weights = {{"other", 2}};
    for (const graph::Task& task : tasks) {
      auto sampled = sampledRecords(task, 12, [](int index) { return 1e-3 * (1 + index); });
      records.insert(records.end(), sampled.begin(), sampled.end());
    }
  }
};

} // namespace

TEST(CostModelDataset, EveryValidRecordBecomesAProgramWithTheFeaturesOfItsLoweredSchedule) {
  Fixture fixture;
  DatasetReport report;
  const ProgramDataset dataset = buildProgramDataset(fixture.tasks, fixture.records, &report);
  ASSERT_EQ(dataset.programCount(), fixture.records.size());
  EXPECT_EQ(report.programs, fixture.records.size());
  EXPECT_EQ(dataset.taskKeys,
            (std::vector<std::string>{fixture.tasks[0].key, fixture.tasks[1].key}));
  EXPECT_EQ(dataset.statements.cols(), static_cast<Eigen::Index>(kStatementFeatureCount));
  EXPECT_EQ(dataset.programOffsets.back(), dataset.statements.rows());

  // Program 3 is the fourth record of the matmul task: recompute its features by hand.
  const measure::Record& record = fixture.records[3];
  const te::Workload workload = te::lowerTask(fixture.tasks[0]);
  const nn::Matrix expected = programFeatures(
      fixture.tasks[0],
      schedule::lower(workload, schedule::replay(workload, record.schedule), "program"));
  const int begin = dataset.programOffsets[3];
  ASSERT_EQ(dataset.programOffsets[4] - begin, expected.rows());
  EXPECT_EQ(nn::Matrix(dataset.statements.middleRows(begin, expected.rows())), expected);
  EXPECT_DOUBLE_EQ(dataset.costs[3], 4e-3);
}

TEST(CostModelDataset, TaskTagsFollowEachStatement) {
  Fixture fixture;
  const ProgramDataset dataset = buildProgramDataset(fixture.tasks, fixture.records);
  const auto tag = [](TaskTag t) {
    return static_cast<Eigen::Index>(features::kProgramFeatureCount + static_cast<std::size_t>(t));
  };
  const int matmulRow = dataset.programOffsets[0];
  const int addReluRow = dataset.programOffsets[12];
  EXPECT_EQ(dataset.statements(matmulRow, tag(TaskTag::Dense)), 1.0f);
  EXPECT_EQ(dataset.statements(matmulRow, tag(TaskTag::Convolution)), 0.0f);
  EXPECT_EQ(dataset.statements(addReluRow, tag(TaskTag::Dense)), 0.0f);
  EXPECT_EQ(dataset.statements(addReluRow, tag(TaskTag::DataMovementOnly)), 0.0f);
}

TEST(CostModelDataset, SoftmaxTagCoversLogSoftmax) {
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    graph::Task task;
    task.inputs = {{.shape = {4, 8}}};
    task.nodes = {graph::TaskNode{.op = op,
                                  .attributes = {{"axis", std::int64_t{1}}},
                                  .inputs = {graph::TaskValueRef::input(0)},
                                  .outputShapes = {{4, 8}},
                                  .outputTypes = {graph::DataType::Float32}}};
    task.outputs = {graph::TaskValueRef::node(0, 0)};
    const auto tags = taskTags(task);
    EXPECT_EQ(tags[static_cast<std::size_t>(TaskTag::Softmax)], 1.0f) << op;
    EXPECT_EQ(std::count(tags.begin(), tags.end(), 1.0f), 1) << op;
  }
}

TEST(CostModelDataset, FailedRecordsAndUnknownTasksAreCountedAndSkipped) {
  Fixture fixture;
  fixture.records[0].costs.clear();
  fixture.records[0].error = "timeout";
  fixture.records[1].task = "00000000deadbeef";
  DatasetReport report;
  const ProgramDataset dataset = buildProgramDataset(fixture.tasks, fixture.records, &report);
  EXPECT_EQ(report.skippedErrors, 1u);
  EXPECT_EQ(report.skippedUnknownTasks, 1u);
  EXPECT_EQ(dataset.programCount(), fixture.records.size() - 2);
}

TEST(CostModelDataset, LabelsAreNormalisedThroughputPerTask) {
  Fixture fixture;
  const ProgramDataset dataset = buildProgramDataset(fixture.tasks, fixture.records);
  const std::vector<float> labels = dataset.labels();
  EXPECT_FLOAT_EQ(labels[0], 1.0f);          // the fastest matmul program
  EXPECT_FLOAT_EQ(labels[1], 0.5f);          // 1 ms / 2 ms
  EXPECT_FLOAT_EQ(labels[12], 1.0f);         // the fastest of the other task
  EXPECT_FLOAT_EQ(labels[23], 1.0f / 12.0f); // its slowest
}

// Two machines' seconds are two scales: each program is compared with the fastest of its own
// task on its own target.
TEST(CostModelDataset, LabelsAreNormalisedPerTaskAndTarget) {
  Fixture fixture;
  EXPECT_TRUE(buildProgramDataset(fixture.tasks, fixture.records).programTarget.empty());
  for (std::size_t record = 6; record < 12; ++record)
    fixture.records[record].target = "llvm -mcpu=other -threads=2";
  const ProgramDataset dataset = buildProgramDataset(fixture.tasks, fixture.records);
  ASSERT_EQ(dataset.programTarget.size(), dataset.programCount());
  EXPECT_NE(dataset.programTarget[5], dataset.programTarget[6]);
  const std::vector<float> labels = dataset.labels();
  EXPECT_FLOAT_EQ(labels[1], 0.5f);        // 1 ms / 2 ms, the first target
  EXPECT_FLOAT_EQ(labels[6], 1.0f);        // the fastest matmul program of the other target
  EXPECT_FLOAT_EQ(labels[7], 7.0f / 8.0f); // 7 ms / 8 ms
  EXPECT_FLOAT_EQ(labels[12], 1.0f);       // the other task, all on the first target
  const ProgramDataset subset = selectPrograms(dataset, {7, 6});
  EXPECT_EQ(subset.programTarget,
            (std::vector<int>{dataset.programTarget[7], dataset.programTarget[6]}));
}

TEST(CostModelDataset, SelectProgramsKeepsRowsCostsAndRenumbersTasks) {
  Fixture fixture;
  const ProgramDataset dataset = buildProgramDataset(fixture.tasks, fixture.records);
  const ProgramDataset subset = selectPrograms(dataset, {13, 2});
  ASSERT_EQ(subset.programCount(), 2u);
  EXPECT_EQ(subset.taskKeys,
            (std::vector<std::string>{fixture.tasks[1].key, fixture.tasks[0].key}));
  EXPECT_EQ(subset.programTask, (std::vector<int>{0, 1}));
  EXPECT_DOUBLE_EQ(subset.costs[1], dataset.costs[2]);
  const int rows = dataset.programOffsets[3] - dataset.programOffsets[2];
  EXPECT_EQ(nn::Matrix(subset.statements.middleRows(subset.programOffsets[1], rows)),
            nn::Matrix(dataset.statements.middleRows(dataset.programOffsets[2], rows)));
}

TEST(CostModelDataset, WithinTaskSplitIsDisjointCompleteAndDeterministic) {
  Fixture fixture;
  const ProgramDataset dataset = buildProgramDataset(fixture.tasks, fixture.records);
  const ProgramSplit split = splitWithinTasks(dataset, 0.25, 7);
  std::set<std::size_t> all(split.first.begin(), split.first.end());
  for (std::size_t program : split.second)
    EXPECT_TRUE(all.insert(program).second) << program;
  EXPECT_EQ(all.size(), dataset.programCount());
  EXPECT_EQ(split.second.size(), 6u); // round(0.25 × 12) of each task
  EXPECT_EQ(splitWithinTasks(dataset, 0.25, 7).second, split.second);
  EXPECT_NE(splitWithinTasks(dataset, 0.25, 8).second, split.second);
}

TEST(CostModelDataset, SmallTasksStayWholeInTraining) {
  Fixture fixture;
  fixture.records.resize(12 + 5); // the element-wise task keeps 5 programs
  const ProgramDataset dataset = buildProgramDataset(fixture.tasks, fixture.records);
  const ProgramSplit split = splitWithinTasks(dataset, 0.5, 1);
  for (std::size_t program : split.second)
    EXPECT_EQ(dataset.programTask[program], 0);
}

TEST(CostModelDataset, ModelSplitHoldsOutTheTasksOfTheModel) {
  Fixture fixture;
  const ProgramDataset dataset = buildProgramDataset(fixture.tasks, fixture.records);
  const ProgramSplit split = splitByModel(dataset, fixture.tasks, "other");
  EXPECT_EQ(split.first.size(), 12u);
  EXPECT_EQ(split.second.size(), 12u);
  for (std::size_t program : split.second)
    EXPECT_EQ(dataset.taskKeys[static_cast<std::size_t>(dataset.programTask[program])],
              fixture.tasks[1].key);
  EXPECT_THROW(splitByModel(dataset, fixture.tasks, "absent"), Error);
}
