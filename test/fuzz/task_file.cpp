// libFuzzer harness: tasks.jsonl (graph::readTaskFile).
#include "FuzzInput.h"
#include "graph/TaskFile.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return clustune::fuzz::readAsFile(
      data, size, [](const std::string& path) { clustune::graph::readTaskFile(path); });
}
