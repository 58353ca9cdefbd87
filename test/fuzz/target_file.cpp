// libFuzzer harness: CPU target files, configs/targets/*.json (codegen::loadCpuTarget).
#include "FuzzInput.h"
#include "codegen/cpu/CpuTarget.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return clustune::fuzz::readAsFile(
      data, size, [](const std::string& path) { clustune::codegen::loadCpuTarget(path); });
}
