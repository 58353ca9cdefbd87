// libFuzzer harness: the MLP cost-model loader (costmodel::loadMlpCostModel).
#include "FuzzInput.h"
#include "costmodel/MlpCostModelFile.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return clustune::fuzz::readAsFile(
      data, size, [](const std::string& path) { clustune::costmodel::loadMlpCostModel(path); });
}
