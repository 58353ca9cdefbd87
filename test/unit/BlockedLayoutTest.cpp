// The blocked channel layout pass (graph/BlockedLayout.h): where it puts convolutions and
// transforms, and that a converted model computes what the NCHW model computes, both through
// the interpreter and through compiled default schedules.
#include "graph/BlockedLayout.h"

#include "codegen/Target.h"
#include "executor/CompiledKernel.h"
#include "executor/ModelBenchmark.h"
#include "executor/ModelExecutor.h"
#include "executor/ReferenceKernel.h"
#include "graph/Partition.h"
#include "graph/ShapeInference.h"
#include "graph/Simplify.h"
#include "graph/Weights.h"
#include "onnx/Importer.h"
#include "onnx/ModelTasks.h"
#include "support/Error.h"

#include <algorithm>
#include <gtest/gtest.h>

namespace clustune {
namespace {

using graph::Graph;

Graph simplifiedModel(const std::string& name, const onnx_import::ImportOptions& options = {}) {
  Graph model = onnx_import::importModel(std::string(CLUSTUNE_SOURCE_DIR) + "/" + name, options);
  graph::generateMissingWeights(model, 7);
  graph::simplify(model);
  return model;
}

int countOps(const Graph& model, const std::string& op) {
  return static_cast<int>(std::count_if(model.nodes.begin(), model.nodes.end(),
                                        [&](const graph::Node& node) { return node.op == op; }));
}

std::vector<te::TensorData> runModel(const Graph& model, executor::KernelFactory& factory,
                                     const std::vector<te::TensorData>& inputs) {
  executor::ModelExecutor executor(model, factory);
  return executor.run(inputs);
}

TEST(BlockedLayout, ParsesLayoutNames) {
  EXPECT_EQ(graph::parseChannelLayout("NCHW"), 0);
  EXPECT_EQ(graph::parseChannelLayout("NCHW16c"), 16);
  EXPECT_EQ(graph::parseChannelLayout("NCHW8c"), 8);
  for (const char* bad : {"", "NHWC", "NCHWc", "NCHW016c", "NCHW16", "NCHWxc", "nchw16c"})
    EXPECT_FALSE(graph::parseChannelLayout(bad)) << bad;
  EXPECT_EQ(graph::channelLayoutName(16), "NCHW16c");
  EXPECT_EQ(graph::channelLayoutName(0), "NCHW");
  EXPECT_EQ(onnx_import::channelBlockFromFlag("NCHW16c"), 16);
  EXPECT_THROW(onnx_import::channelBlockFromFlag("NCHW1c"), Error);
  EXPECT_THROW(onnx_import::channelBlockFromFlag("NHWC"), Error);
}

TEST(BlockedLayout, InputBlockIsTheLargestDivisorUpToTheBlock) {
  EXPECT_EQ(graph::inputChannelBlock(64, 16), 16);
  EXPECT_EQ(graph::inputChannelBlock(3, 16), 3);
  EXPECT_EQ(graph::inputChannelBlock(24, 16), 12);
  EXPECT_EQ(graph::inputChannelBlock(7, 4), 1);
}

TEST(BlockedLayout, OutputBlockIsTheBlockOrHalfOfIt) {
  EXPECT_EQ(graph::outputChannelBlock(64, 16), 16);
  EXPECT_EQ(graph::outputChannelBlock(24, 16), 8);
  EXPECT_EQ(graph::outputChannelBlock(120, 16), 8);
  EXPECT_EQ(graph::outputChannelBlock(20, 16), 0);
  EXPECT_EQ(graph::outputChannelBlock(6, 4), 2);
  EXPECT_EQ(graph::outputChannelBlock(3, 2), 0);
}

// tiny_mobile: Conv 3→16, Clip, depthwise 3×3, Relu, MaxPool, depthwise 3×3 stride 2 scaled by
// GlobalAveragePool-HardSigmoid (a broadcast Mul), Conv 16→24 1×1, Mul by 0.5, Conv 24→24 1×1,
// Add, Concat, BatchNormalization, grouped Conv 48→48 (3 groups), AveragePool,
// GlobalAveragePool. At block 16 the depthwise layers
// keep the 16-channel blocks and the 24-channel layers take blocks of 8, so only the image and the
// output need transforms.
TEST(BlockedLayout, ConvertsDepthwiseConvolutionsAndBlocksOddChannelCountsByHalf) {
  Graph model = simplifiedModel("test/tools/Inputs/tiny_mobile.onnx");
  const auto statistics = graph::convertToBlockedLayout(model, 16);
  EXPECT_EQ(statistics.convolutions, 6);
  EXPECT_EQ(statistics.depthwise, 2);
  EXPECT_EQ(statistics.elementwise, 7); // Clip, Relu, HardSigmoid, both Mul, Add, the norm
  EXPECT_EQ(statistics.pooling, 4);
  EXPECT_EQ(statistics.concatenations, 1);
  EXPECT_EQ(statistics.transforms, 2);
  EXPECT_EQ(countOps(model, "Conv"), 0);
  EXPECT_EQ(countOps(model, graph::kDepthwiseConvNCHWcOp), 2);
  for (const graph::Node& node : model.nodes) {
    const graph::Shape& weight =
        node.inputs.size() > 1 ? model.values[node.inputs[1]].shape : graph::Shape{};
    const graph::Shape& output = model.values[node.outputs[0]].shape;
    if (node.op == graph::kDepthwiseConvNCHWcOp) {
      EXPECT_EQ(weight, (graph::Shape{1, 1, 3, 3, 1, 16}));
      EXPECT_EQ(output.back(), 16);
    }
    if (node.op == graph::kConvNCHWcOp && node.intAttribute("group", 1) == 3) {
      EXPECT_EQ(weight, (graph::Shape{3, 2, 3, 3, 8, 16})); // 16 input channels a group
      EXPECT_EQ(output, (graph::Shape{1, 3, 3, 3, 16}));
    }
    if (node.op == graph::kConvNCHWcOp && weight[0] * weight[5] == 24) {
      EXPECT_EQ(weight[5], 8);                       // 24 output channels in blocks of 8
      EXPECT_EQ(weight[4], weight[1] == 1 ? 16 : 8); // each reads its input's existing block
    }
  }
  for (const graph::Task& task : graph::partition(model))
    EXPECT_FALSE(task.key.empty());
}

// tiny_cnn: Conv 3→4 (BatchNormalization folded), Relu, Conv 4→4 1×1, Add of the two, Relu,
// GlobalAveragePool, Gemm. The whole chain up to the pooling stays blocked.
TEST(BlockedLayout, KeepsAConvolutionChainBlockedUpToThePooling) {
  Graph model = simplifiedModel("test/tools/Inputs/tiny_cnn.onnx");
  const auto statistics = graph::convertToBlockedLayout(model, 4);
  EXPECT_EQ(statistics.convolutions, 2);
  EXPECT_EQ(statistics.elementwise, 3); // Relu, Add, Relu
  EXPECT_EQ(statistics.pooling, 1);     // GlobalAveragePool
  EXPECT_EQ(statistics.transforms, 2);  // the image into NCHW3c, the pooled values to NCHW
  EXPECT_EQ(countOps(model, "Conv"), 0);
  EXPECT_EQ(countOps(model, graph::kConvNCHWcOp), 2);
  EXPECT_EQ(countOps(model, graph::kLayoutTransformOp), 2);
  for (const graph::Node& node : model.nodes)
    if (node.op == graph::kConvNCHWcOp) {
      EXPECT_EQ(model.values[node.inputs[1]].shape.size(), 6u);
      EXPECT_TRUE(model.values[node.inputs[1]].hasData);
    }
  // Three tasks more or less than NCHW is not the point; every task must lower.
  for (const graph::Task& task : graph::partition(model))
    EXPECT_FALSE(task.key.empty());
}

// Video: every 3-D convolution, the residual adds and the activations stay blocked from the
// image's transform to the pooling's.
TEST(BlockedLayout, KeepsA3DConvolutionChainBlocked) {
  Graph model = simplifiedModel("test/tools/Inputs/tiny_video.onnx");
  const auto statistics = graph::convertToBlockedLayout(model, 8);
  EXPECT_EQ(statistics.convolutions, 5);
  EXPECT_EQ(statistics.transforms, 2); // the video into NCHW3c, the last activation to NCHW
  EXPECT_EQ(countOps(model, "Conv"), 0);
  for (const graph::Node& node : model.nodes)
    if (node.op == graph::kConvNCHWcOp) {
      EXPECT_EQ(model.values[node.inputs[0]].shape.size(), 6u);
      EXPECT_EQ(model.values[node.inputs[1]].shape.size(), 7u);
    }
  for (const graph::Task& task : graph::partition(model))
    EXPECT_FALSE(task.key.empty());
}

TEST(BlockedLayout, BlockZeroAndIneligibleConvolutionsLeaveTheGraphAlone) {
  Graph model = simplifiedModel("test/tools/Inputs/tiny_cnn.onnx");
  const std::size_t nodes = model.nodes.size();
  EXPECT_EQ(graph::convertToBlockedLayout(model, 0).convolutions, 0);
  EXPECT_EQ(graph::convertToBlockedLayout(model, 16).convolutions, 0); // 4 channels
  EXPECT_EQ(model.nodes.size(), nodes);
  EXPECT_EQ(countOps(model, graph::kLayoutTransformOp), 0);
}

// A depthwise convolution that reads an NCHW graph input takes the layout's block itself.
TEST(BlockedLayout, ConvertsADepthwiseConvolutionOfAnNchwInput) {
  Graph model;
  const graph::ValueId x =
      model.addValue({.name = "x", .shape = {1, 16, 6, 6}, .kind = graph::ValueKind::Input});
  model.inputs.push_back(x);
  graph::Value weight = {.name = "w",
                         .shape = {16, 1, 3, 3},
                         .kind = graph::ValueKind::Constant,
                         .hasData = true,
                         .floatData = std::vector<double>(144, 0.5)};
  const graph::ValueId w = model.addValue(std::move(weight));
  const graph::ValueId y = model.addValue({.name = "y"});
  model.addNode(
      {.name = "dw",
       .op = "Conv",
       .attributes = {{"group", std::int64_t{16}}, {"pads", std::vector<std::int64_t>{1, 1, 1, 1}}},
       .inputs = {x, w},
       .outputs = {y}});
  model.outputs.push_back(y);
  graph::inferShapes(model, 17);
  graph::simplify(model);
  const auto statistics = graph::convertToBlockedLayout(model, 16);
  EXPECT_EQ(statistics.depthwise, 1);
  EXPECT_EQ(statistics.transforms, 2); // in and out
  EXPECT_EQ(countOps(model, graph::kDepthwiseConvNCHWcOp), 1);
}

TEST(BlockedLayout, ConvertedModelsComputeWhatTheNchwModelComputes) {
  for (const auto& [file, block] : std::vector<std::pair<std::string, std::int64_t>>{
           {"test/tools/Inputs/tiny_cnn.onnx", 4},
           {"test/tools/Inputs/tiny_cnn.onnx", 2},
           {"test/tools/Inputs/tiny_blocks_d3.onnx", 8},
           {"test/tools/Inputs/tiny_blocks_d3.onnx", 4},
           {"test/tools/Inputs/tiny_mobile.onnx", 16},
           {"test/tools/Inputs/tiny_mobile.onnx", 8},
           {"test/tools/Inputs/tiny_mobile.onnx", 4},
           {"test/tools/Inputs/tiny_video.onnx", 8},
           {"test/tools/Inputs/tiny_video.onnx", 4}}) {
    SCOPED_TRACE(file + " NCHW" + std::to_string(block) + "c");
    const Graph nchw = simplifiedModel(file);
    Graph blocked = nchw;
    ASSERT_GT(graph::convertToBlockedLayout(blocked, block).convolutions, 0);
    const auto inputs = executor::randomModelInputs(nchw, 3);

    executor::ReferenceKernelFactory interpreter(codegen::hostCpuTarget(), 0);
    const auto expected = runModel(nchw, interpreter, inputs);
    const auto interpreted = runModel(blocked, interpreter, inputs);
    executor::CompiledKernelFactory compiler(codegen::hostCpuTarget());
    const auto compiled = runModel(blocked, compiler, inputs);
    for (const auto* actual : {&interpreted, &compiled}) {
      const auto comparison = executor::compareOutputs(*actual, expected);
      EXPECT_TRUE(comparison.withinTolerance) << comparison.firstMismatch;
      EXPECT_LT(comparison.maxAbsoluteError, 1e-4);
    }
  }
}

TEST(BlockedLayout, ImporterRefusesTheInternalOperators) {
  EXPECT_TRUE(graph::lookupOp(graph::kConvNCHWcOp)->internal);
  EXPECT_TRUE(graph::lookupOp(graph::kDepthwiseConvNCHWcOp)->internal);
  EXPECT_TRUE(graph::lookupOp(graph::kLayoutTransformOp)->internal);
  EXPECT_FALSE(graph::lookupOp("Conv")->internal);
}

} // namespace
} // namespace clustune
