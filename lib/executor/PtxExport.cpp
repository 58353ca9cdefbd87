// See PtxExport.h.
#include "executor/PtxExport.h"

#include "codegen/cuda/CudaCodegen.h"
#include "schedule/DefaultGpuSchedule.h"
#include "schedule/Lower.h"
#include "schedule/State.h"
#include "support/Error.h"
#include "support/Files.h"
#include "te/LowerTask.h"

#include <filesystem>
#include <spdlog/spdlog.h>

namespace clustune::executor {

nlohmann::ordered_json exportPtx(const std::vector<graph::Task>& tasks,
                                 const codegen::CudaTarget& target, const ScheduleLookup& tuned,
                                 const std::string& directory) {
  std::vector<codegen::CudaModule> modules;
  nlohmann::ordered_json summary = nlohmann::ordered_json::array();
  for (const graph::Task& task : tasks) {
    try {
      const te::Workload workload = te::lowerTask(task);
      const std::optional<std::vector<schedule::Step>> steps = tuned(task.key);
      const schedule::State state = schedule::replay(
          workload,
          steps ? *steps
                : schedule::defaultGpuSchedule(
                      workload, {.threadsPerBlock = std::min(256, target.maxThreadsPerBlock)}));
      modules.push_back(
          codegen::compileToPtx(schedule::lower(workload, state, "task_" + task.key), target));
      nlohmann::ordered_json kernels = nlohmann::ordered_json::array();
      for (const codegen::CudaLaunch& launch : modules.back().launches)
        kernels.push_back(
            {{"kernel", launch.kernel}, {"grid", launch.grid}, {"block", launch.block}});
      std::int64_t workspace = 0;
      for (const codegen::CudaWorkspace& buffer : modules.back().workspace)
        workspace += buffer.bytes;
      summary.push_back({{"key", task.key},
                         {"anchor", task.anchor},
                         {"tuned", steps.has_value()},
                         {"kernels", std::move(kernels)},
                         {"workspace_bytes", workspace},
                         {"ptx", task.key + ".ptx"}});
      spdlog::debug("task {} ({}): {} kernels", task.key, task.anchor,
                    modules.back().launches.size());
    } catch (const Error& error) {
      throw error.withContext({.task = task.key});
    }
  }
  std::error_code created;
  std::filesystem::create_directories(directory, created);
  if (created)
    throw Error("cannot create the folder: " + created.message(), {.file = directory});
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    OutputFile file((std::filesystem::path(directory) / (tasks[i].key + ".ptx")).string());
    file.stream() << modules[i].ptx;
    file.commit();
  }
  return summary;
}

} // namespace clustune::executor
