// libFuzzer harness: the ONNX importer (onnx::importModel: protobuf parsing, checks, shape
// inference, the import rules and simplification).
#include "FuzzInput.h"
#include "onnx/Importer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return clustune::fuzz::readAsFile(
      data, size, [](const std::string& path) { clustune::onnx_import::importModel(path); });
}
