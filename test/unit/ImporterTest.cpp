// ONNX import of the small hand-made models in test/tools/Inputs (made by
// scripts/make_test_inputs.py) and of the --input-shape syntax.
#include "onnx/Importer.h"

#include "graph/Simplify.h"
#include "support/Error.h"

#include <gtest/gtest.h>

using namespace clustune;
using onnx_import::importModel;

namespace {

std::string input(const std::string& name) {
  return std::string(CLUSTUNE_SOURCE_DIR) + "/test/tools/Inputs/" + name;
}

std::string errorOf(const std::function<void()>& body) {
  try {
    body();
  } catch (const Error& error) {
    return error.what();
  }
  return "(no error)";
}

int countOps(const graph::Graph& model, const std::string& op) {
  int count = 0;
  for (const auto& node : model.nodes)
    count += !node.erased && node.op == op;
  return count;
}

} // namespace

TEST(InputShape, ParsesNameAndDimensions) {
  auto [name, shape] = onnx_import::parseInputShape("image=1x3x224x224");
  EXPECT_EQ(name, "image");
  EXPECT_EQ(shape, (graph::Shape{1, 3, 224, 224}));
  EXPECT_EQ(onnx_import::parseInputShape("scalar=").second, graph::Shape{});
}

TEST(InputShape, RejectsMalformedText) {
  for (const char* text : {"image", "=1x3", "image=1x", "image=1xx3", "image=0x3", "image=-1x3",
                           "image=1x3.5", "image=axb"})
    EXPECT_THROW(onnx_import::parseInputShape(text), Error) << text;
}

TEST(Importer, ModelNameIsTheFileStem) {
  EXPECT_EQ(onnx_import::modelNameFromPath("models/bert-base.onnx"), "bert-base");
  EXPECT_EQ(onnx_import::modelNameFromPath("-"), "stdin");
}

TEST(Importer, TinyCnnHasStaticShapesAndData) {
  graph::Graph model = importModel(input("tiny_cnn.onnx"));
  EXPECT_EQ(model.name, "tiny_cnn");
  ASSERT_EQ(model.inputs.size(), 1u);
  EXPECT_EQ(model.values[model.inputs[0]].shape, (graph::Shape{1, 3, 8, 8}));
  ASSERT_EQ(model.outputs.size(), 1u);
  EXPECT_EQ(model.values[model.outputs[0]].shape, (graph::Shape{1, 10}));
  const auto& conv = model.nodes.front();
  EXPECT_EQ(conv.op, "Conv");
  EXPECT_TRUE(model.values[conv.inputs[1]].hasData);
}

TEST(Importer, BatchResolvesDynamicDimensionAndFoldsShapeChain) {
  graph::Graph model = importModel(input("tiny_dynamic.onnx"), {.batch = 3});
  EXPECT_EQ(model.values[model.outputs[0]].shape, (graph::Shape{3, 10}));
  EXPECT_GT(countOps(model, "Shape"), 0);
  graph::simplify(model);
  EXPECT_EQ(countOps(model, "Shape"), 0);
  EXPECT_EQ(countOps(model, "Concat"), 0);
  EXPECT_EQ(countOps(model, "BatchNormalization"), 0);
  EXPECT_EQ(countOps(model, "Identity") + countOps(model, "Dropout"), 0);
  for (const auto& node : model.nodes)
    if (node.op == "Reshape") {
      EXPECT_EQ(node.inputs.size(), 1u);
      EXPECT_EQ(node.intsAttribute("shape"), (std::vector<std::int64_t>{3, 4}));
    }
}

TEST(Importer, InputShapeOverrideWinsOverBatch) {
  graph::Graph model = importModel(input("tiny_dynamic.onnx"),
                                   {.batch = 3, .inputShapes = {{"image", {5, 3, 8, 8}}}});
  EXPECT_EQ(model.values[model.outputs[0]].shape, (graph::Shape{5, 10}));
}

TEST(Importer, ErrorsNameFileAndCause) {
  EXPECT_NE(
      errorOf([] {
        importModel(input("tiny_dynamic.onnx"));
      }).find("tiny_dynamic.onnx: graph input 'image' has dynamic dimension 'batch' at axis 0"),
      std::string::npos);
  EXPECT_NE(errorOf([] {
              importModel(input("tiny_cnn.onnx"), {.inputShapes = {{"nope", {1}}}});
            }).find("'nope', which is not a graph input (inputs: image)"),
            std::string::npos);
  EXPECT_NE(errorOf([] {
              importModel(input("opset22.onnx"));
            }).find("opset 22 is newer than clustune knows (opsets up to 21)"),
            std::string::npos);
  EXPECT_NE(errorOf([] {
              importModel(input("unsupported_op.onnx"));
            }).find("node 'determinant': no import rule for operator 'Det'"),
            std::string::npos);
  EXPECT_NE(errorOf([] { importModel(input("empty.onnx")); }).find("empty file"),
            std::string::npos);
  EXPECT_NE(errorOf([] { importModel(input("random_bytes.onnx")); }).find("not a valid ONNX model"),
            std::string::npos);
  EXPECT_NE(errorOf([] { importModel(input("truncated.onnx")); }).find("not a valid ONNX model"),
            std::string::npos);
  EXPECT_NE(errorOf([] {
              importModel(input("escape_relative.onnx"));
            }).find("escapes the model's folder"),
            std::string::npos);
  EXPECT_NE(errorOf([] { importModel(input("escape_absolute.onnx")); }).find("'/etc/passwd'"),
            std::string::npos);
  EXPECT_NE(errorOf([] { importModel(input("does_not_exist.onnx")); }).find("cannot open"),
            std::string::npos);
}

TEST(Importer, MissingExternalDataIsFine) {
  graph::Graph model = importModel(input("tiny_external.onnx"));
  const auto& conv = model.nodes.front();
  EXPECT_EQ(conv.op, "Conv");
  EXPECT_FALSE(model.values[conv.inputs[1]].hasData);
  EXPECT_GT(model.values[conv.inputs[1]].elements(), 0);
}

// clustune's shape inference against ONNX's on the whole corpus (opset 17): every value that
// ONNX 1.12 types statically gets the same type and shape; a disagreement throws.
TEST(Importer, CorpusShapesAgreeWithOnnxInference) {
  for (const char* name : {"bert-base", "bert-large", "bert-tiny", "dcgan", "densenet121",
                           "inception_v3", "mobilenet_v2", "mobilenet_v3_large", "r3d_18",
                           "resnet18", "resnet50", "resnext50_32x4d", "wide_resnet50_2"}) {
    const std::string path = std::string(CLUSTUNE_SOURCE_DIR) + "/models/" + name + ".onnx";
    EXPECT_NO_THROW(importModel(path, {.crossCheckOnnxInference = true})) << name;
  }
}
