// See CpuTarget.h.
#include "codegen/cpu/CpuTarget.h"

#include "codegen/TargetFile.h"
#include "codegen/cpu/VectorMath.h"
#include "support/Error.h"
#include "support/Files.h"
#include "support/Jsonl.h"

#include <algorithm>
#include <llvm/ADT/SmallVector.h>
#include <llvm/ADT/StringMap.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/X86TargetParser.h>
#include <thread>
#include <vector>

namespace clustune::codegen {
CpuTarget hostCpuTarget() {
  CpuTarget target;
  target.triple = llvm::sys::getProcessTriple();
  target.cpu = llvm::sys::getHostCPUName().str();
  // Sorted, so that the same machine always gives the same string (records compare targets).
  std::vector<std::string> features;
  bool avx = false, avx512 = false;
  for (const auto& feature : llvm::sys::getHostCPUFeatures()) {
    const std::string name = feature.getKey().str();
    features.push_back((feature.getValue() ? "+" : "-") + name);
    if (feature.getValue() && name == "avx")
      avx = true;
    if (feature.getValue() && name == "avx512f")
      avx512 = true;
  }
  std::sort(features.begin(), features.end());
  for (const std::string& feature : features)
    target.features += (target.features.empty() ? "" : ",") + feature;
  target.vectorBits = avx512 ? 512 : avx ? 256 : 128;
  target.cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  target.vectorMath = vectorMathAvailable();
  return target;
}

int vectorBitsOfCpu(const std::string& cpu) {
  if (llvm::X86::parseArchX86(cpu) == llvm::X86::CK_None)
    return 0;
  llvm::SmallVector<llvm::StringRef, 64> features;
  llvm::X86::getFeaturesForCPU(cpu, features, /*NeedPlus=*/false);
  const auto has = [&](llvm::StringRef name) {
    return std::find(features.begin(), features.end(), name) != features.end();
  };
  return has("avx512f") ? 512 : has("avx") ? 256 : 128;
}

CpuTarget loadCpuTarget(const std::string& path) {
  const ErrorContext context{.file = displayPath(path)};
  const nlohmann::json description = readTargetDescription(path);
  requireTargetKind(description, "cpu", context);

  CpuTarget target;
  target.triple = requireField<std::string>(description, "triple", context);
  target.cpu = requireField<std::string>(description, "mcpu", context);
  target.features = requireField<std::string>(description, "features", context);
  target.vectorBits = requireField<int>(description, "vector_bits", context);
  target.cores = requireField<int>(description, "cores", context);
  target.vectorMath = vectorMathAvailable();
  if (description.contains("vector_math")) {
    if (!description["vector_math"].is_boolean())
      throw Error("field 'vector_math' must be true or false", context);
    target.vectorMath = description["vector_math"].get<bool>() && target.vectorMath;
  }
  if (target.triple.empty())
    throw Error("field 'triple' is empty", context);
  if (target.cpu.empty())
    throw Error("field 'mcpu' is empty", context);
  if (target.vectorBits != 128 && target.vectorBits != 256 && target.vectorBits != 512)
    throw Error("field 'vector_bits' must be 128, 256 or 512, got " +
                    std::to_string(target.vectorBits),
                context);
  if (target.cores < 1)
    throw Error("field 'cores' must be at least 1, got " + std::to_string(target.cores), context);
  return target;
}

} // namespace clustune::codegen
