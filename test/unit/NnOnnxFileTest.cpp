// ONNX model files of the neural-network kit: round trips of graphs, initializers (bit-exact, 1-D
// and 2-D) and metadata, the header fields other ONNX tools rely on, and the files and graphs
// that must be rejected. Files from other producers are written here with the ONNX protobuf
// types directly.
#include "nn/OnnxFile.h"
#include "support/Error.h"
#include "support/Files.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <limits>
#include <onnx/onnx_pb.h>
#include <unistd.h>

using namespace clustune;
using namespace clustune::nn;

namespace {

std::string temporaryPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("clustune-onnxfile-" + std::to_string(::getpid()) + "-" + name))
      .string();
}

// Expects `call` to throw a clustune::Error for `path` whose message contains `fragment`.
template <typename Call>
void expectError(Call call, const std::string& path, const std::string& fragment) {
  try {
    call();
    FAIL() << "expected an error containing '" << fragment << "'";
  } catch (const Error& error) {
    EXPECT_EQ(error.context().file, path);
    EXPECT_NE(error.message().find(fragment), std::string::npos) << error.message();
  }
}

onnx::ModelProto readProto(const std::string& path) {
  onnx::ModelProto model;
  EXPECT_TRUE(model.ParseFromString(readFileBytes(path)));
  return model;
}

void writeProto(const std::string& path, const onnx::ModelProto& model) {
  std::ofstream(path, std::ios::binary) << model.SerializeAsString();
}

// A clustune-looking model written without saveOnnxGraph, for the reader's checks.
onnx::ModelProto handWrittenModel(const std::string& producer) {
  onnx::ModelProto model;
  model.set_ir_version(7);
  model.set_producer_name(producer);
  model.add_opset_import()->set_version(13);
  auto* kind = model.add_metadata_props();
  kind->set_key("clustune.kind");
  kind->set_value("test.kind");
  model.mutable_graph()->set_name("hand");
  return model;
}

// features[N,3] -> Gemm(W 3x2, b) -> Relu -> ReduceSum over axis 0, keepdims -> output [1,2].
OnnxGraph tinyGraph() {
  OnnxGraph graph;
  graph.name = "tiny";
  graph.inputs.push_back({.name = "features", .shape = {-1, 3}, .dimNames = {"N", ""}});
  graph.outputs.push_back({.name = "output", .shape = {1, 2}, .dimNames = {}});
  graph.nodes.push_back({.opType = "Gemm",
                         .inputs = {"features", "W", "b"},
                         .outputs = {"hidden"},
                         .intAttributes = {{"transB", 0}},
                         .intListAttributes = {},
                         .floatAttributes = {{"alpha", 1.0f}, {"beta", 1.0f}}});
  graph.nodes.push_back({.opType = "Relu",
                         .inputs = {"hidden"},
                         .outputs = {"activated"},
                         .intAttributes = {},
                         .intListAttributes = {},
                         .floatAttributes = {}});
  graph.nodes.push_back({.opType = "ReduceSum",
                         .inputs = {"activated", "axes"},
                         .outputs = {"output"},
                         .intAttributes = {{"keepdims", 1}},
                         .intListAttributes = {},
                         .floatAttributes = {}});
  Matrix weights(3, 2);
  weights << 1.0f, -1.0f, 0.5f, 2.0f, -0.25f, 0.125f;
  Matrix bias(1, 2);
  bias << 0.1f, -0.2f;
  graph.initializers = {{"W", weights}, {"b", bias}};
  graph.oneDimensional = {"b"};
  graph.int64Initializers = {{"axes", {0}}};
  graph.metadata = {{"clustune.kind", "test.tiny"}};
  return graph;
}

bool sameBits(const Matrix& a, const Matrix& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.size()) * sizeof(float)) == 0;
}

} // namespace

TEST(NnOnnxFile, RoundTripsNodesAttributesMetadataAndInitializers) {
  OnnxGraph graph = tinyGraph();
  graph.nodes.push_back({.opType = "Transpose",
                         .inputs = {"output"},
                         .outputs = {"transposed"},
                         .intAttributes = {},
                         .intListAttributes = {{"perm", {1, 0}}},
                         .floatAttributes = {}});
  graph.outputs.push_back({.name = "transposed", .shape = {2, 1}, .dimNames = {}});
  // Values whose bits a decimal or double round trip would change.
  Matrix awkward(2, 3);
  awkward << -0.0f, std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::max(),
      std::nextafter(1.0f, 2.0f), std::bit_cast<float>(0x7fc01234u),
      -std::numeric_limits<float>::infinity();
  graph.initializers.emplace_back("awkward", awkward);
  graph.int64Initializers.emplace_back("big", std::vector<std::int64_t>{-1, 1LL << 40, 7});
  graph.metadata["clustune.features"] = "a,b,c";
  const std::string path = temporaryPath("roundtrip.onnx");
  saveOnnxGraph(path, graph);

  const OnnxGraph loaded = loadOnnxGraph(path, "test.tiny");
  EXPECT_EQ(loaded.name, "tiny");
  EXPECT_EQ(loaded.sourceFile, path);
  EXPECT_EQ(loaded.metadata, graph.metadata);
  ASSERT_EQ(loaded.inputs.size(), 1u);
  EXPECT_EQ(loaded.inputs[0].name, "features");
  EXPECT_EQ(loaded.inputs[0].shape, (std::vector<std::int64_t>{-1, 3}));
  EXPECT_EQ(loaded.inputs[0].dimNames, (std::vector<std::string>{"N", ""}));
  ASSERT_EQ(loaded.outputs.size(), 2u);
  EXPECT_EQ(loaded.outputs[0].shape, (std::vector<std::int64_t>{1, 2}));
  EXPECT_TRUE(loaded.outputs[0].dimNames.empty());
  EXPECT_EQ(loaded.outputs[1].name, "transposed");

  ASSERT_EQ(loaded.nodes.size(), graph.nodes.size());
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    SCOPED_TRACE(graph.nodes[i].opType);
    EXPECT_EQ(loaded.nodes[i].opType, graph.nodes[i].opType);
    EXPECT_EQ(loaded.nodes[i].inputs, graph.nodes[i].inputs);
    EXPECT_EQ(loaded.nodes[i].outputs, graph.nodes[i].outputs);
    EXPECT_EQ(loaded.nodes[i].intAttributes, graph.nodes[i].intAttributes);
    EXPECT_EQ(loaded.nodes[i].intListAttributes, graph.nodes[i].intListAttributes);
    EXPECT_EQ(loaded.nodes[i].floatAttributes, graph.nodes[i].floatAttributes);
  }

  ASSERT_EQ(loaded.initializers.size(), 3u);
  for (const auto& [name, matrix] : graph.initializers)
    EXPECT_TRUE(sameBits(initializer(loaded, name), matrix)) << name;
  EXPECT_EQ(loaded.oneDimensional, (std::set<std::string>{"b"}));
  EXPECT_EQ(loaded.int64Initializers, graph.int64Initializers);
  EXPECT_EQ(int64Initializer(loaded, "axes"), (std::vector<std::int64_t>{0}));
  std::filesystem::remove(path);
}

TEST(NnOnnxFile, StoresOneRowMatricesAsOneOrTwoDimensions) {
  OnnxGraph graph = tinyGraph();
  Matrix row(1, 2);
  row << 3.0f, 4.0f;
  graph.initializers.emplace_back("row", row); // not listed in oneDimensional
  const std::string path = temporaryPath("dims.onnx");
  saveOnnxGraph(path, graph);

  const onnx::ModelProto model = readProto(path);
  std::map<std::string, std::vector<std::int64_t>> dims;
  for (const auto& tensor : model.graph().initializer())
    dims[tensor.name()].assign(tensor.dims().begin(), tensor.dims().end());
  EXPECT_EQ(dims["W"], (std::vector<std::int64_t>{3, 2}));
  EXPECT_EQ(dims["b"], (std::vector<std::int64_t>{2}));
  EXPECT_EQ(dims["row"], (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(dims["axes"], (std::vector<std::int64_t>{1}));

  const OnnxGraph loaded = loadOnnxGraph(path, "test.tiny");
  EXPECT_EQ(initializer(loaded, "b").rows(), 1);
  EXPECT_EQ(initializer(loaded, "row").rows(), 1);
  EXPECT_EQ(loaded.oneDimensional, (std::set<std::string>{"b"}));
  std::filesystem::remove(path);
}

TEST(NnOnnxFile, WritesOpset13IrVersion7AndClustuneAsProducer) {
  const std::string path = temporaryPath("header.onnx");
  saveOnnxGraph(path, tinyGraph());
  const onnx::ModelProto model = readProto(path);
  EXPECT_EQ(model.ir_version(), 7);
  EXPECT_EQ(model.producer_name(), "clustune");
  EXPECT_EQ(model.producer_version(), kOnnxProducerVersion);
  ASSERT_EQ(model.opset_import_size(), 1);
  EXPECT_EQ(model.opset_import(0).domain(), "");
  EXPECT_EQ(model.opset_import(0).version(), 13);
  // The symbolic batch dimension is named, the fixed one has a value.
  const auto& shape = model.graph().input(0).type().tensor_type().shape();
  ASSERT_EQ(shape.dim_size(), 2);
  EXPECT_EQ(shape.dim(0).dim_param(), "N");
  EXPECT_EQ(shape.dim(1).dim_value(), 3);
  std::filesystem::remove(path);
}

TEST(NnOnnxFile, RejectsFilesThatAreNotOnnx) {
  const std::string garbage = temporaryPath("garbage.onnx");
  std::ofstream(garbage, std::ios::binary) << std::string("\xff\xff\xff\xff garbage", 12);
  expectError([&] { loadOnnxGraph(garbage, "test.tiny"); }, garbage, "not an ONNX model");
  const std::string empty = temporaryPath("empty.onnx");
  std::ofstream(empty, std::ios::binary).flush();
  expectError([&] { loadOnnxGraph(empty, "test.tiny"); }, empty, "not an ONNX model");
  const std::string text = std::string(CLUSTUNE_SOURCE_DIR) + "/models/flops.jsonl";
  expectError([&] { loadOnnxGraph(text, "test.tiny"); }, text, "not an ONNX model");
  const std::string missing = temporaryPath("missing.onnx");
  expectError([&] { loadOnnxGraph(missing, "test.tiny"); }, missing, "cannot open");
  std::filesystem::remove(garbage);
  std::filesystem::remove(empty);
}

TEST(NnOnnxFile, RejectsModelsFromOtherProducers) {
  // The exported benchmark models carry a producer that merely starts with "clustune".
  const std::string shipped = std::string(CLUSTUNE_SOURCE_DIR) + "/models/dcgan.onnx";
  expectError([&] { loadOnnxGraph(shipped, "costmodel.mlp"); }, shipped,
              "model was not written by clustune (producer 'clustune scripts/export_models.py')");
  const std::string other = temporaryPath("other-producer.onnx");
  writeProto(other, handWrittenModel("pytorch"));
  expectError([&] { loadOnnxGraph(other, "test.kind"); }, other, "(producer 'pytorch')");
  std::filesystem::remove(other);
}

TEST(NnOnnxFile, RejectsAnotherKindOfModel) {
  const std::string path = temporaryPath("kind.onnx");
  saveOnnxGraph(path, tinyGraph());
  expectError([&] { loadOnnxGraph(path, "costmodel.mlp"); }, path,
              "expected a 'costmodel.mlp' model, found clustune.kind 'test.tiny'");
  OnnxGraph unlabelled = tinyGraph();
  unlabelled.metadata.clear();
  saveOnnxGraph(path, unlabelled);
  expectError([&] { loadOnnxGraph(path, "costmodel.mlp"); }, path,
              "expected a 'costmodel.mlp' model, found no clustune.kind");
  std::filesystem::remove(path);
}

TEST(NnOnnxFile, RejectsInitializersItCannotHold) {
  const std::string path = temporaryPath("initializers.onnx");
  {
    onnx::ModelProto model = handWrittenModel("clustune");
    auto* tensor = model.mutable_graph()->add_initializer();
    tensor->set_name("cube");
    tensor->set_data_type(onnx::TensorProto_DataType_FLOAT);
    for (int i = 0; i < 3; ++i)
      tensor->add_dims(1);
    tensor->add_float_data(1.0f);
    writeProto(path, model);
    expectError([&] { loadOnnxGraph(path, "test.kind"); }, path,
                "initializer 'cube' has 3 dimensions; at most 2 are supported");
  }
  {
    onnx::ModelProto model = handWrittenModel("clustune");
    auto* tensor = model.mutable_graph()->add_initializer();
    tensor->set_name("doubles");
    tensor->set_data_type(onnx::TensorProto_DataType_DOUBLE);
    tensor->add_dims(1);
    tensor->add_double_data(1.0);
    writeProto(path, model);
    expectError([&] { loadOnnxGraph(path, "test.kind"); }, path,
                "initializer 'doubles' is not float");
  }
  {
    onnx::ModelProto model = handWrittenModel("clustune");
    auto* tensor = model.mutable_graph()->add_initializer();
    tensor->set_name("short");
    tensor->set_data_type(onnx::TensorProto_DataType_FLOAT);
    tensor->add_dims(2);
    tensor->add_dims(2);
    tensor->set_raw_data(std::string(12, '\0'));
    writeProto(path, model);
    expectError([&] { loadOnnxGraph(path, "test.kind"); }, path,
                "has 12 bytes of data for 4 elements");
  }
  std::filesystem::remove(path);
}

TEST(NnOnnxFile, ReadsFloatDataWrittenAsTypedValues) {
  // Other writers (onnx.helper with raw=False) use float_data instead of raw_data.
  const std::string path = temporaryPath("typed.onnx");
  onnx::ModelProto model = handWrittenModel("clustune");
  auto* tensor = model.mutable_graph()->add_initializer();
  tensor->set_name("W");
  tensor->set_data_type(onnx::TensorProto_DataType_FLOAT);
  tensor->add_dims(2);
  tensor->add_dims(2);
  for (float value : {1.0f, 2.0f, 3.0f, 4.0f})
    tensor->add_float_data(value);
  writeProto(path, model);
  const OnnxGraph loaded = loadOnnxGraph(path, "test.kind");
  Matrix expected(2, 2);
  expected << 1.0f, 2.0f, 3.0f, 4.0f;
  EXPECT_TRUE(sameBits(initializer(loaded, "W"), expected));
  std::filesystem::remove(path);
}

TEST(NnOnnxFile, MissingInitializerNamesItAndTheFile) {
  const std::string path = temporaryPath("missing-initializer.onnx");
  saveOnnxGraph(path, tinyGraph());
  const OnnxGraph loaded = loadOnnxGraph(path, "test.tiny");
  expectError([&] { initializer(loaded, "W2"); }, path, "no float initializer 'W2'");
  expectError([&] { int64Initializer(loaded, "W"); }, path, "no int64 initializer 'W'");
  std::filesystem::remove(path);
}

TEST(NnOnnxFile, RejectsGraphsItCannotWrite) {
  const std::string path = temporaryPath("invalid.onnx");
  OnnxGraph notOneRow = tinyGraph();
  notOneRow.oneDimensional.insert("W");
  expectError([&] { saveOnnxGraph(path, notOneRow); }, path,
              "initializer 'W' is listed as 1-D but has 3 rows");
  OnnxGraph duplicate = tinyGraph();
  duplicate.int64Initializers.emplace_back("W", std::vector<std::int64_t>{1});
  expectError([&] { saveOnnxGraph(path, duplicate); }, path, "two initializers are named 'W'");
  OnnxGraph badNames = tinyGraph();
  badNames.inputs[0].dimNames = {"N"};
  expectError([&] { saveOnnxGraph(path, badNames); }, path,
              "'features' has 1 dimension names for 2 dimensions");
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(NnOnnxFile, WritingToAnUnwritablePathFails) {
  const std::string directory = temporaryPath("no-such-directory");
  const std::string path = directory + "/model.onnx";
  expectError([&] { saveOnnxGraph(path, tinyGraph()); }, path, "cannot write");
  EXPECT_FALSE(std::filesystem::exists(directory));
}

TEST(NnOnnxFile, ReplacingAFileKeepsNoTemporaryFiles) {
  const std::filesystem::path directory = temporaryPath("replace");
  std::filesystem::create_directories(directory);
  const std::string path = (directory / "model.onnx").string();
  saveOnnxGraph(path, tinyGraph());
  OnnxGraph changed = tinyGraph();
  changed.name = "changed";
  saveOnnxGraph(path, changed);
  EXPECT_EQ(loadOnnxGraph(path, "test.tiny").name, "changed");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(directory),
                          std::filesystem::directory_iterator()),
            1);
  std::filesystem::remove_all(directory);
}
