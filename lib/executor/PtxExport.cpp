// See PtxExport.h.
#include "executor/PtxExport.h"

#include "support/Error.h"
#include "support/Files.h"

#include <filesystem>
#include <spdlog/spdlog.h>

namespace clustune::executor {

nlohmann::ordered_json exportPtx(const std::vector<graph::Task>& tasks,
                                 const codegen::CudaTarget& target, const ScheduleLookup& tuned,
                                 const std::string& directory) {
  std::vector<codegen::CudaModule> modules;
  nlohmann::ordered_json summary = nlohmann::ordered_json::array();
  for (const graph::Task& task : tasks) {
    const GpuTaskKernels compiled = compileTaskForGpu(task, target, tuned);
    modules.push_back(compiled.module);
    nlohmann::ordered_json kernels = nlohmann::ordered_json::array();
    for (const codegen::CudaLaunch& launch : compiled.module.launches)
      kernels.push_back(
          {{"kernel", launch.kernel}, {"grid", launch.grid}, {"block", launch.block}});
    std::int64_t workspace = 0;
    for (const codegen::CudaWorkspace& buffer : compiled.module.workspace)
      workspace += buffer.bytes;
    summary.push_back({{"key", task.key},
                       {"anchor", task.anchor},
                       {"tuned", compiled.tuned},
                       {"kernels", std::move(kernels)},
                       {"workspace_bytes", workspace},
                       {"ptx", task.key + ".ptx"}});
    spdlog::debug("task {} ({}): {} kernels", task.key, task.anchor,
                  compiled.module.launches.size());
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
