// libFuzzer harness: the ONNX importer (onnx::importModel: protobuf parsing, checks, clustune's
// shape inference, the import rules) and the simplification every tool runs after it.
#include "FuzzInput.h"
#include "graph/Simplify.h"
#include "onnx/Importer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return clustune::fuzz::readAsFile(data, size, [](const std::string& path) {
    clustune::graph::Graph graph = clustune::onnx_import::importModel(path);
    clustune::graph::simplify(graph);
  });
}
