// The CUDA back end over the whole corpus, without a GPU: every task of the shipped dataset
// (the 13 networks' 407 tasks), with its default GPU schedule and five sampled ones
// (search/GpuSample.h), compiles to PTX that ptxas accepts for sm_90, and on the smaller tasks
// those schedules compute in the loop interpreter what the naive schedule computes.
#include "codegen/cuda/CudaCodegen.h"
#include "graph/TaskFile.h"
#include "measure/SeededInputs.h"
#include "schedule/DefaultGpuSchedule.h"
#include "schedule/LoopInterpreter.h"
#include "schedule/Lower.h"
#include "schedule/NaiveSchedule.h"
#include "schedule/State.h"
#include "search/GpuSample.h"
#include "support/Error.h"
#include "te/LowerTask.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <unistd.h>

using namespace clustune;

namespace {

std::vector<graph::Task> corpusTasks() {
  const std::string source = std::string(CLUSTUNE_SOURCE_DIR) + "/data/cpu-znver5/tasks.jsonl.gz";
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("clustune-cuda-corpus-" + std::to_string(::getpid()) + ".jsonl"))
                               .string();
  if (std::system(("zcat '" + source + "' > '" + path + "'").c_str()) != 0)
    throw Error("cannot decompress " + source);
  std::vector<graph::Task> tasks = graph::readTaskFile(path);
  std::filesystem::remove(path);
  return tasks;
}

te::LoweredFunction lowered(const te::Workload& workload,
                            const std::vector<schedule::Step>& steps) {
  return schedule::lower(workload, schedule::replay(workload, steps), "task");
}

std::vector<te::TensorData> interpret(const te::LoweredFunction& function,
                                      std::vector<te::TensorData> inputs,
                                      const te::Workload& workload) {
  std::vector<te::TensorData> outputs;
  for (const te::Tensor& output : workload.outputs)
    outputs.emplace_back(output->dtype, output->shape);
  std::vector<te::TensorData*> arguments;
  for (te::TensorData& input : inputs)
    arguments.push_back(&input);
  for (te::TensorData& output : outputs)
    arguments.push_back(&output);
  schedule::runLoweredFunction(function, arguments);
  return outputs;
}

} // namespace

namespace {

// The OS threads the interpreter starts for the schedule's cross-thread reductions: one per
// thread of every block, which is what bounds its running time; 0 when it has none.
std::int64_t crossThreadsStarted(const te::Workload& workload,
                                 const std::vector<schedule::Step>& steps) {
  const schedule::State state = schedule::replay(workload, steps);
  std::int64_t started = 0;
  for (const schedule::Stage& stage : state.stages())
    for (std::size_t position = 0; position < stage.loops.size(); ++position)
      if (stage.loop(position).kind == schedule::IteratorKind::Reduce &&
          stage.loop(position).annotation == schedule::Annotation::ThreadIdxX)
        started += graph::elementCount(stage.tensor->shape) * stage.loop(position).extent;
  return started;
}

// Compiles every corpus task with its default GPU schedule and `samples(i)` sampled ones (task i)
// and has ptxas assemble each module.
void expectPtxasAcceptsCorpus(const std::function<int(std::size_t)>& samples) {
  const std::vector<graph::Task> tasks = corpusTasks();
  ASSERT_EQ(tasks.size(), 407u);
  const codegen::CudaTarget target = codegen::loadCudaTarget(std::string(CLUSTUNE_SOURCE_DIR) +
                                                             "/configs/targets/nvidia-h200.json");
  const auto directory =
      std::filesystem::temp_directory_path() / ("clustune-cuda-ptx-" + std::to_string(::getpid()));
  std::filesystem::create_directories(directory);
  std::size_t modules = 0, sampled = 0, shared = 0, crossThread = 0;
  for (std::size_t index = 0; index < tasks.size(); ++index) {
    const graph::Task& task = tasks[index];
    SCOPED_TRACE("task " + task.key + " (" + task.anchor + ")");
    const te::Workload workload = te::lowerTask(task);
    std::vector<std::vector<schedule::Step>> schedules =
        search::sampleGpu(workload, samples(index), 1,
                          {.maxThreadsPerBlock = target.maxThreadsPerBlock,
                           .maxSharedMemoryPerBlock = target.maxSharedMemoryPerBlock});
    sampled += schedules.size();
    schedules.insert(schedules.begin(), schedule::defaultGpuSchedule(workload, {}));
    for (std::size_t k = 0; k < schedules.size(); ++k) {
      const codegen::CudaModule module =
          codegen::compileToPtx(lowered(workload, schedules[k]), target);
      ASSERT_FALSE(module.launches.empty());
      for (const codegen::CudaLaunch& launch : module.launches)
        EXPECT_NE(module.ptx.find(".entry " + launch.kernel), std::string::npos);
      std::ofstream(directory / (task.key + "-" + std::to_string(k) + ".ptx")) << module.ptx;
      ++modules;
      shared += module.ptx.find(".shared .align") != std::string::npos ? 1 : 0;
      crossThread += crossThreadsStarted(workload, schedules[k]) > 0 ? 1 : 0;
    }
  }
  std::printf("%zu modules, %zu of them sampled, %zu with shared memory, %zu reducing across "
              "threads\n",
              modules, sampled, shared, crossThread);

  const std::string ptxas = "/usr/local/cuda/bin/ptxas";
  if (!std::filesystem::exists(ptxas)) {
    std::filesystem::remove_all(directory);
    GTEST_SKIP() << "no ptxas: the CUDA toolkit is not installed";
  }
  // One shell for all modules; it names the ones ptxas refuses.
  const std::string log = (directory / "refused.txt").string();
  const std::string command = "cd '" + directory.string() + "' && for f in *.ptx; do " + ptxas +
                              " -arch=sm_90 \"$f\" -o /dev/null > \"$f.log\" 2>&1 || echo \"$f\" "
                              ">> '" +
                              log + "'; done";
  ASSERT_EQ(std::system(command.c_str()), 0);
  std::ifstream refused(log);
  std::string first;
  EXPECT_FALSE(std::getline(refused, first)) << "ptxas refused " << first;
  std::filesystem::remove_all(directory);
}

} // namespace

TEST(CudaCorpus, EveryTasksDefaultGpuScheduleAndSomeSampledOnesGivePtxThatPtxasAccepts) {
  // One sampled schedule for every eighth task keeps this within a minute on 2 cores.
  expectPtxasAcceptsCorpus([](std::size_t task) { return task % 8 == 0 ? 1 : 0; });
}

// Five sampled schedules of every task: about 10 minutes on 2 cores, so outside the default
// run and ctest; `ninja check-cuda-corpus` runs it.
TEST(CudaCorpus, DISABLED_FiveSampledGpuSchedulesOfEveryTaskGivePtxThatPtxasAccepts) {
  expectPtxasAcceptsCorpus([](std::size_t) { return 5; });
}

bool usesSharedMemory(const std::vector<schedule::Step>& steps) {
  return std::any_of(steps.begin(), steps.end(), [](const schedule::Step& step) {
    const auto* cacheRead = std::get_if<schedule::CacheReadStep>(&step);
    return cacheRead && cacheRead->scope == "shared";
  });
}

TEST(CudaCorpus, DefaultAndSampledGpuSchedulesComputeWhatTheNaiveScheduleComputes) {
  std::size_t checked = 0, shared = 0, crossThread = 0;
  for (const graph::Task& task : corpusTasks()) {
    if (task.flops > 1'000'000)
      continue; // the interpreter runs a few million operations a second
    SCOPED_TRACE("task " + task.key + " (" + task.anchor + ")");
    const te::Workload workload = te::lowerTask(task);
    const std::vector<te::TensorData> inputs =
        measure::generateInputs(measure::argumentSpecs(task, workload), 7);
    const auto naive =
        interpret(lowered(workload, schedule::naiveSchedule(workload)), inputs, workload);
    // The default schedule; on the smallest tasks one sampled schedule and the first of six
    // that reads through shared memory; on all, the first of six that reduces across threads
    // on at most 50,000 threads in all; each run with every block's threads meeting at its
    // barriers.
    std::vector<std::vector<schedule::Step>> schedules = {
        schedule::defaultGpuSchedule(workload, {})};
    const std::vector<std::vector<schedule::Step>> sampled = search::sampleGpu(workload, 6, 3);
    const bool smallest = task.flops <= 200'000;
    if (smallest && !sampled.empty())
      schedules.push_back(sampled.front());
    for (std::size_t i = smallest ? 1 : 0; smallest && i < sampled.size(); ++i)
      if (usesSharedMemory(sampled[i]) && !usesSharedMemory(sampled.front())) {
        schedules.push_back(sampled[i]);
        break;
      }
    for (std::size_t i = smallest ? 1 : 0; i < sampled.size(); ++i) {
      const std::int64_t threads = crossThreadsStarted(workload, sampled[i]);
      if (threads > 0 && threads <= 50'000 &&
          !(smallest && crossThreadsStarted(workload, sampled.front()) > 0)) {
        schedules.push_back(sampled[i]);
        break;
      }
    }
    for (const auto& steps : schedules) {
      const auto gpu = interpret(lowered(workload, steps), inputs, workload);
      ASSERT_EQ(gpu.size(), naive.size());
      for (std::size_t output = 0; output < gpu.size(); ++output)
        for (std::int64_t e = 0; e < gpu[output].elements(); ++e) {
          // Reduction orders differ between the schedules: a few ulps of the partial sums.
          const double a = gpu[output].get(e), b = naive[output].get(e);
          ASSERT_TRUE(a == b || std::fabs(a - b) <= 1e-4 * (1 + std::fabs(b)) ||
                      (std::isnan(a) && std::isnan(b)))
              << "output " << output << " element " << e << ": " << a << " vs " << b << "\n"
              << schedule::toJson(steps).dump();
        }
      ++checked;
      shared += usesSharedMemory(steps) ? 1 : 0;
      crossThread += crossThreadsStarted(workload, steps) > 0 ? 1 : 0;
    }
  }
  EXPECT_GE(checked, 120u); // 123 of the 407 tasks are this small
  EXPECT_GE(shared, 12u);
  EXPECT_GE(crossThread, 12u);
  std::printf("checked %zu schedules, %zu of them with shared memory, %zu reducing across "
              "threads\n",
              checked, shared, crossThread);
}
