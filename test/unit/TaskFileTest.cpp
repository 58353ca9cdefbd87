// Tests of graph/TaskFile.h: tasks.jsonl reads back what taskToJson wrote, and a repeated key is
// an error naming both lines.
#include "graph/TaskFile.h"

#include "MeasureTestSupport.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

namespace clustune::graph {
namespace {

std::string writeTasks(const std::vector<Task>& tasks, const std::string& name) {
  const auto path =
      std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()) + ".jsonl");
  std::ofstream stream(path);
  for (const Task& task : tasks)
    stream << taskToJson(task).dump() << "\n";
  return path.string();
}

TEST(TaskFileTest, ReadsTasksInFileOrder) {
  const Task matmul = measure::testing::matmulTask(4, 8, 2);
  const Task addRelu = measure::testing::addReluTask(3, 5);
  const std::string path = writeTasks({matmul, addRelu}, "task-file");
  const std::vector<Task> tasks = readTaskFile(path);
  ASSERT_EQ(tasks.size(), 2u);
  EXPECT_EQ(tasks[0].key, matmul.key);
  EXPECT_EQ(tasks[1].key, addRelu.key);
  EXPECT_EQ(taskToJson(tasks[1]).dump(), taskToJson(addRelu).dump());
  std::filesystem::remove(path);
}

TEST(TaskFileTest, ARepeatedKeyNamesBothLines) {
  const Task matmul = measure::testing::matmulTask(4, 8, 2);
  const std::string path =
      writeTasks({matmul, measure::testing::addReluTask(3, 5), matmul}, "task-file-repeated");
  try {
    readTaskFile(path);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(path + ":3"), std::string::npos) << message;
    EXPECT_NE(message.find("already appeared on line 1"), std::string::npos) << message;
  }
  std::filesystem::remove(path);
}

} // namespace
} // namespace clustune::graph
