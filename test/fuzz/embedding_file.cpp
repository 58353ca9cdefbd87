// libFuzzer harness: embeddings.jsonl (cluster::readEmbeddingFile).
#include "FuzzInput.h"
#include "cluster/EmbeddingFile.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return clustune::fuzz::readAsFile(
      data, size, [](const std::string& path) { clustune::cluster::readEmbeddingFile(path); });
}
