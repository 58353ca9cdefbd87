// See Target.h.
#include "codegen/Target.h"

#include "support/Error.h"

namespace clustune::codegen {

Target resolveTarget(const std::string& name) {
  if (name == "host")
    return {.cpu = hostCpuTarget(), .gpu = std::nullopt};
  const std::string kind = targetKind(name);
  if (kind == "cuda")
    return {.cpu = hostCpuTarget(), .gpu = loadCudaTarget(name)};
  return {.cpu = loadCpuTarget(name), .gpu = std::nullopt};
}

std::string targetLabel(const Target& target, int threads) {
  if (target.gpu)
    return "cuda -arch=" + target.gpu->arch;
  return "llvm -mcpu=" + target.cpu.cpu + " -threads=" + std::to_string(threads);
}

} // namespace clustune::codegen
