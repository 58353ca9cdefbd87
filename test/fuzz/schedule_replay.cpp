// libFuzzer harness: schedule JSON replay. An input is a record-like line {"task": KEY,
// "schedule": [steps]}; the steps are parsed (schedule::stepsFromJson), replayed on the task's
// workload and lowered, as clustune-measure --schedules and the tuner's resume do. The tasks
// are a few of the corpus's (schedule_replay.tasks.jsonl: a padded convolution, a max pool, a dense
// layer, a softmax, a batched matmul and a layer normalisation); an unknown key is skipped.
#include "FuzzInput.h"
#include "graph/TaskFile.h"
#include "schedule/Lower.h"
#include "schedule/State.h"
#include "schedule/Step.h"
#include "te/LowerTask.h"

#include <map>
#include <nlohmann/json.hpp>

namespace {

const std::map<std::string, clustune::te::Workload>& workloads() {
  static const std::map<std::string, clustune::te::Workload> byKey = [] {
    std::map<std::string, clustune::te::Workload> result;
    for (const clustune::graph::Task& task :
         clustune::graph::readTaskFile(CLUSTUNE_FUZZ_SCHEDULE_TASKS))
      result.emplace(task.key, clustune::te::lowerTask(task));
    return result;
  }();
  return byKey;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const nlohmann::json input = nlohmann::json::parse(data, data + size, nullptr, false);
  if (!input.is_object() || !input.contains("task") || !input["task"].is_string() ||
      !input.contains("schedule"))
    return 0;
  const auto workload = workloads().find(input["task"].get<std::string>());
  if (workload == workloads().end())
    return 0;
  try {
    const std::vector<clustune::schedule::Step> steps =
        clustune::schedule::stepsFromJson(input["schedule"]);
    clustune::schedule::lower(workload->second, clustune::schedule::replay(workload->second, steps),
                              "fuzz");
  } catch (const clustune::Error&) {
  }
  return 0;
}
