// libFuzzer harness: the graph-autoencoder loader (gae::loadGae).
#include "FuzzInput.h"
#include "gae/GaeModelFile.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return clustune::fuzz::readAsFile(data, size,
                                    [](const std::string& path) { clustune::gae::loadGae(path); });
}
