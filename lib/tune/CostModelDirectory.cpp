// See CostModelDirectory.h.
#include "tune/CostModelDirectory.h"

#include "codegen/cpu/CpuTarget.h"
#include "support/Error.h"
#include "support/Jsonl.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <spdlog/spdlog.h>
#include <vector>

namespace clustune::tune {
namespace {

namespace fs = std::filesystem;

std::string costModelRoot() {
  if (const char* root = std::getenv("CLUSTUNE_COSTMODELS_DIR"); root && *root)
    return root;
  return CLUSTUNE_COSTMODELS_DIR;
}

// "llvm -mcpu=znver5 -threads=2" -> "znver5"; "" when the string names no CPU.
std::string cpuOfTarget(const std::string& target) {
  const std::string flag = "-mcpu=";
  const std::size_t at = target.find(flag);
  if (at == std::string::npos)
    return "";
  const std::size_t begin = at + flag.size();
  return target.substr(begin, target.find(' ', begin) - begin);
}

} // namespace

std::string bundledCostModelDirectory(const std::string& cpu) {
  const fs::path root = costModelRoot();
  const fs::path exact = root / ("cpu-" + cpu);
  if (fs::exists(exact / "meta.json"))
    return exact.string();
  std::vector<std::string> others;
  std::error_code ignored;
  for (const auto& entry : fs::directory_iterator(root, ignored))
    if (entry.path().filename().string().rfind("cpu-", 0) == 0 &&
        fs::exists(entry.path() / "meta.json"))
      others.push_back(entry.path().string());
  if (others.empty())
    throw Error("no bundled cost models under " + root.string() +
                " (scripts/train_bundled.sh makes them); pass --cost-model DIR");
  // Another machine's models rank best where its vector width is the host's: the schedules that
  // win with AVX-512 registers are not those that win with AVX2 ones (docs/performance.md, "Cost
  // models for the AVX2 machine").
  const int hostBits = codegen::vectorBitsOfCpu(cpu);
  const auto sameWidth = [&](const std::string& path) {
    return codegen::vectorBitsOfCpu(fs::path(path).filename().string().substr(4)) == hostBits;
  };
  std::sort(others.begin(), others.end(), [&](const std::string& a, const std::string& b) {
    const bool aSame = sameWidth(a), bSame = sameWidth(b);
    return aSame != bSame ? aSame : a < b;
  });
  spdlog::info("no bundled cost models for CPU '{}'; using {}", cpu, others.front());
  return others.front();
}

CostModelDirectory loadCostModelDirectory(const std::string& path, const std::string& cpu) {
  CostModelDirectory directory{
      .path = path, .ensemble = costmodel::CostModelEnsemble::load(path), .gae = std::nullopt};
  const std::string metaPath = (fs::path(path) / "meta.json").string();
  const std::string target =
      optionalField<std::string>(directory.ensemble.meta(), "target", "", {.file = metaPath});
  if (target.rfind("llvm", 0) != 0)
    throw Error("the cost models were trained on records of target '" + target +
                    "', not on CPU (llvm) measurements: they cannot rank CPU programs",
                {.file = metaPath});
  if (const std::string trainedOn = cpuOfTarget(target); trainedOn != cpu)
    spdlog::warn("{}: the cost models learnt timings of CPU '{}', this run measures on '{}'", path,
                 trainedOn, cpu);
  const fs::path gaePath = fs::path(path) / "gae.onnx";
  if (fs::exists(gaePath)) {
    directory.gae = gae::loadGae(gaePath.string());
    // Checked here, before anything is measured: a mismatch would otherwise surface at the
    // first task the clustering never saw, after records were written.
    const auto embeddingWidth =
        static_cast<std::size_t>(2 * directory.gae->model.architecture().latent);
    if (const std::size_t width = directory.ensemble.routingWidth();
        width != 0 && width != embeddingWidth)
      throw Error("the routing centroids have width " + std::to_string(width) + ", but " +
                      gaePath.string() + " embeds tasks in " + std::to_string(embeddingWidth) +
                      " dimensions: the two come from different trainings",
                  {.file = metaPath});
  } else
    spdlog::info("{}: no gae.onnx; tasks the clusters do not assign use the global model", path);
  return directory;
}

} // namespace clustune::tune
