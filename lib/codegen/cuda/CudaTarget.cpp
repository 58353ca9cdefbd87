// See CudaTarget.h.
#include "codegen/cuda/CudaTarget.h"

#include "codegen/TargetFile.h"
#include "support/Files.h"
#include "support/Jsonl.h"

#include <cctype>

namespace clustune::codegen {
namespace {

int positiveInteger(const nlohmann::json& description, const char* name,
                    const ErrorContext& context) {
  const int value = requireField<int>(description, name, context);
  if (value < 1)
    throw Error(std::string("field '") + name + "' must be at least 1, got " +
                    std::to_string(value),
                context);
  return value;
}

// "sm_" and a compute capability of two or more digits, optionally with the architecture-
// specific suffix "a" (sm_90a).
bool isSmArch(const std::string& arch) {
  if (arch.size() < 5 || arch.rfind("sm_", 0) != 0)
    return false;
  std::size_t end = arch.size();
  if (arch.back() == 'a')
    --end;
  for (std::size_t i = 3; i < end; ++i)
    if (!std::isdigit(static_cast<unsigned char>(arch[i])))
      return false;
  return end - 3 >= 2;
}

} // namespace

CudaTarget loadCudaTarget(const std::string& path) {
  const ErrorContext context{.file = displayPath(path)};
  const nlohmann::json description = readTargetDescription(path);
  requireTargetKind(description, "cuda", context);
  CudaTarget target;
  target.arch = requireField<std::string>(description, "arch", context);
  if (!isSmArch(target.arch))
    throw Error("field 'arch' must name a GPU architecture such as \"sm_90\", got \"" +
                    target.arch + "\"",
                context);
  target.smCount = positiveInteger(description, "sm_count", context);
  target.maxThreadsPerBlock = positiveInteger(description, "max_threads_per_block", context);
  target.maxSharedMemoryPerBlock =
      positiveInteger(description, "max_shared_memory_per_block", context);
  target.registersPerBlock = positiveInteger(description, "registers_per_block", context);
  target.warpSize = positiveInteger(description, "warp_size", context);
  return target;
}

std::string targetKind(const std::string& path) {
  return readTargetDescription(path).at("kind").get<std::string>();
}

} // namespace clustune::codegen
