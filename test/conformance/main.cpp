// clustune-conformance: runs the ONNX backend node tests (Debian's libonnx-testdata) through
// clustune's import, simplification, partitioning, lowering and execution, and compares every
// output with the expected one. Tests whose operators or attributes clustune does not support
// are listed as unsupported, never counted as passed. Ends with "N passed, N failed".
//
// Tolerances (fp32): |actual - expected| <= 1e-4 + 1e-3 * |expected| for floating-point
// outputs (ONNX's own backend tests use rtol 1e-3, atol 1e-7; the larger atol absorbs float32
// rounding of values near zero, e.g. sums that cancel); integer and bool outputs must be exact;
// NaN matches NaN.
#include "codegen/cpu/CpuTarget.h"
#include "executor/CompiledKernel.h"
#include "executor/ModelExecutor.h"
#include "graph/Simplify.h"
#include "onnx/Importer.h"
#include "onnx/ParameterInputs.h"
#include "onnx/TensorFile.h"
#include "support/Error.h"
#include "support/ToolMain.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <spdlog/spdlog.h>

using namespace clustune;
namespace fs = std::filesystem;

namespace {

constexpr double kAbsoluteTolerance = 1e-4;
constexpr double kRelativeTolerance = 1e-3;

enum class Outcome { Passed, Failed, Unsupported };

struct Result {
  Outcome outcome;
  std::string reason;
};

std::string compare(const te::TensorData& actual, const te::TensorData& expected) {
  if (actual.dtype() != expected.dtype() || actual.shape() != expected.shape())
    return std::string("output is ") + graph::dataTypeName(actual.dtype()) + "[" +
           graph::shapeToString(actual.shape()) + "], expected " +
           graph::dataTypeName(expected.dtype()) + "[" + graph::shapeToString(expected.shape()) +
           "]";
  const bool floating = graph::isFloatingPoint(expected.dtype());
  for (std::int64_t i = 0; i < expected.elements(); ++i) {
    const double a = actual.get(i), e = expected.get(i);
    const bool equal =
        floating ? ((std::isnan(a) && std::isnan(e)) || a == e ||
                    std::fabs(a - e) <= kAbsoluteTolerance + kRelativeTolerance * std::fabs(e))
                 : a == e;
    if (!equal)
      return "element " + std::to_string(i) + " is " + std::to_string(a) + ", expected " +
             std::to_string(e);
  }
  return {};
}

std::vector<fs::path> sortedEntries(const fs::path& directory, const std::string& prefix) {
  std::vector<fs::path> entries;
  for (const auto& entry : fs::directory_iterator(directory))
    if (entry.path().filename().string().starts_with(prefix))
      entries.push_back(entry.path());
  // input_10.pb sorts after input_9.pb
  std::sort(entries.begin(), entries.end(), [](const fs::path& a, const fs::path& b) {
    const auto number = [](const fs::path& p) {
      const std::string stem = p.stem().string();
      return std::stoi(stem.substr(stem.find_last_of('_') + 1));
    };
    return number(a) < number(b);
  });
  return entries;
}

// Reads a data set's input and expected output tensors, in file order.
void readDataSet(const fs::path& dataSet, std::vector<onnx_import::NamedTensor>& inputs,
                 std::vector<te::TensorData>& expected) {
  for (const fs::path& file : sortedEntries(dataSet, "input_"))
    inputs.push_back(onnx_import::readTensorFile(file.string()));
  for (const fs::path& file : sortedEntries(dataSet, "output_"))
    expected.push_back(onnx_import::readTensorFile(file.string()).data);
}

// A static compiler specialises a model on its input shapes, and on the inputs that are really
// parameters of an operator: int64 tensors (Reshape's shape, Slice's starts, Gather's indices),
// scalars (Clip's bounds, Pad's value) and the float tensors that Resize reads as its roi and
// scales (onnx_import::parameterInputs), as TVM's ONNX frontend does with freeze_params: those
// become constants before shape inference.
onnx_import::ImportOptions specialisation(const std::vector<onnx_import::NamedTensor>& inputs,
                                          const std::set<std::string>& parameters) {
  onnx_import::ImportOptions options;
  for (const auto& input : inputs) {
    if (input.name.empty())
      continue;
    if (input.data.dtype() == graph::DataType::Int64 || input.data.shape().empty() ||
        parameters.count(input.name))
      options.constantInputs[input.name] = input.data;
    else
      options.inputShapes[input.name] = input.data.shape();
  }
  return options;
}

Result runDataSet(const fs::path& model, const fs::path& dataSet,
                  executor::KernelFactory& factory) {
  std::vector<onnx_import::NamedTensor> inputs;
  std::vector<te::TensorData> expected;
  try {
    readDataSet(dataSet, inputs, expected);
  } catch (const Error& error) {
    return {Outcome::Unsupported, "test data: " + error.message()};
  }
  // Errors before anything runs (import, simplification, lowering) mean a feature clustune
  // lacks; errors while running are failures.
  std::unique_ptr<executor::ModelExecutor> executor;
  std::vector<te::TensorData> runtimeInputs;
  try {
    auto options = specialisation(inputs, onnx_import::parameterInputs(model.string()));
    options.crossCheckOnnxInference = true;
    graph::Graph graph = onnx_import::importModel(model.string(), options);
    graph::simplify(graph);
    for (const auto& input : inputs)
      if (input.name.empty() || !options.constantInputs.count(input.name))
        runtimeInputs.push_back(input.data);
    executor = std::make_unique<executor::ModelExecutor>(std::move(graph), factory);
  } catch (const Error& error) {
    if (error.message().starts_with(onnx_import::kInferenceDisagreement))
      return {Outcome::Failed, error.message()};
    return {Outcome::Unsupported, error.message()};
  }
  if (executor->model().outputs.size() != expected.size())
    return {Outcome::Failed, "model has " + std::to_string(executor->model().outputs.size()) +
                                 " outputs, test data " + std::to_string(expected.size())};
  std::vector<te::TensorData> actual;
  try {
    actual = executor->run(runtimeInputs);
  } catch (const Error& error) {
    return {Outcome::Failed, error.what()};
  }
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (std::string mismatch = compare(actual[i], expected[i]); !mismatch.empty())
      return {Outcome::Failed,
              dataSet.filename().string() + " output " + std::to_string(i) + ": " + mismatch};
  return {Outcome::Passed, {}};
}

Result runTest(const fs::path& directory, executor::KernelFactory& factory) {
  std::vector<fs::path> dataSets;
  for (const auto& entry : fs::directory_iterator(directory))
    if (entry.is_directory() && entry.path().filename().string().starts_with("test_data_set_"))
      dataSets.push_back(entry.path());
  std::sort(dataSets.begin(), dataSets.end());
  if (dataSets.empty())
    return {Outcome::Unsupported, "no test data"};
  for (const fs::path& dataSet : dataSets)
    if (Result result = runDataSet(directory / "model.onnx", dataSet, factory);
        result.outcome != Outcome::Passed)
      return result;
  return {Outcome::Passed, {}};
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"Run the ONNX backend node tests through clustune and compare every output.\n"
               "Unsupported tests are listed separately and never counted as passed."};
  CommonOptions common;
  std::string dataDirectory = "/usr/share/libonnx-testdata/data/node";
  std::string filter = ".*";
  bool listUnsupported = false;
  std::string kernels = "compiled";
  app.add_option("--data-dir", dataDirectory, "Folder of node tests (one sub-folder per test)")
      ->capture_default_str();
  app.add_option("--filter", filter, "Only tests whose name matches this regular expression");
  app.add_flag("--list-unsupported", listUnsupported,
               "Print every unsupported test with its reason");
  app.add_option("--kernels", kernels,
                 "How tasks run: 'compiled' (default schedule, LLVM, host CPU) or 'interpreter' "
                 "(the reference evaluator)")
      ->check(CLI::IsMember({"compiled", "interpreter"}))
      ->capture_default_str();
  addCommonOptions(app, common, /*withSeed=*/false);
  return runTool(app, common, argc, argv, [&] {
    if (!fs::is_directory(dataDirectory))
      throw Error("not a folder of node tests (install libonnx-testdata)", {.file = dataDirectory});
    const std::regex pattern(filter);
    std::unique_ptr<executor::KernelFactory> factory;
    if (kernels == "compiled")
      factory = std::make_unique<executor::CompiledKernelFactory>(codegen::hostCpuTarget());
    else
      factory = executor::makeInterpreterKernelFactory();
    std::vector<fs::path> tests;
    for (const auto& entry : fs::directory_iterator(dataDirectory))
      if (entry.is_directory() && std::regex_search(entry.path().filename().string(), pattern))
        tests.push_back(entry.path());
    std::sort(tests.begin(), tests.end());

    int passed = 0, failed = 0;
    std::map<std::string, std::vector<std::string>> unsupportedByReason;
    for (const fs::path& test : tests) {
      const std::string name = test.filename().string();
      const Result result = runTest(test, *factory);
      switch (result.outcome) {
      case Outcome::Passed:
        ++passed;
        spdlog::debug("PASS {}", name);
        break;
      case Outcome::Failed:
        ++failed;
        std::printf("FAIL %s: %s\n", name.c_str(), result.reason.c_str());
        break;
      case Outcome::Unsupported:
        unsupportedByReason[result.reason].push_back(name);
        break;
      }
    }
    std::size_t unsupported = 0;
    for (const auto& [reason, names] : unsupportedByReason)
      unsupported += names.size();
    std::printf("unsupported: %zu tests (%zu distinct reasons)\n", unsupported,
                unsupportedByReason.size());
    for (const auto& [reason, names] : unsupportedByReason) {
      std::printf("  %3zu  %s\n", names.size(), reason.c_str());
      if (listUnsupported)
        for (const auto& name : names)
          std::printf("         %s\n", name.c_str());
    }
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
  });
}
