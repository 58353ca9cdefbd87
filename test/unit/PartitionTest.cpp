// Fusion rules of the partitioner (post-dominator tree, phase 0 anchors, phase 1 injective and
// reduction fusion) and key sharing between equal subgraphs, on small hand-built graphs shaped
// like the blocks of ResNet and BERT.
#include "graph/Partition.h"

#include <algorithm>
#include <gtest/gtest.h>

using namespace clustune::graph;

namespace {

// Builds graphs the way the simplifier leaves them: patterns set from the registry, binary
// element-wise ops on differing shapes marked Broadcast.
class GraphBuilder {
public:
  explicit GraphBuilder(std::string modelName) { graph.name = std::move(modelName); }

  ValueId input(const std::string& name, Shape shape) {
    const auto id =
        graph.addValue(Value{.name = name, .shape = std::move(shape), .kind = ValueKind::Input});
    graph.inputs.push_back(id);
    return id;
  }

  ValueId weight(const std::string& name, Shape shape, std::vector<double> data = {}) {
    Value value{.name = name, .shape = std::move(shape), .kind = ValueKind::Constant};
    value.hasData = !data.empty();
    value.floatData = std::move(data);
    return graph.addValue(value);
  }

  ValueId node(const std::string& op, std::vector<ValueId> inputs, Shape shape,
               const std::string& name = {}, Attributes attributes = {}) {
    const auto output = graph.addValue(
        Value{.name = name.empty() ? op + std::to_string(graph.values.size()) : name + ":0",
              .shape = std::move(shape)});
    const auto info = lookupOp(op);
    PatternKind pattern = info ? info->pattern : PatternKind::Opaque;
    if (pattern == PatternKind::ElemWise)
      for (ValueId operand : inputs)
        if (graph.values[operand].shape != graph.values[output].shape)
          pattern = PatternKind::Broadcast;
    graph.addNode(Node{.name = name,
                       .op = op,
                       .attributes = std::move(attributes),
                       .inputs = std::move(inputs),
                       .outputs = {output},
                       .pattern = pattern});
    return output;
  }

  void output(ValueId value) { graph.outputs.push_back(value); }

  Graph graph;
};

std::vector<std::string> opsOf(const Task& task) {
  std::vector<std::string> ops;
  for (const TaskNode& node : task.nodes)
    ops.push_back(node.op);
  std::sort(ops.begin(), ops.end());
  return ops;
}

using Ops = std::vector<std::string>;

// conv (+ bias add) + relu, the common block of CNNs after BatchNormalization folding.
ValueId convBlock(GraphBuilder& b, ValueId x, const std::string& prefix, std::int64_t channels,
                  std::int64_t size) {
  const auto w = b.weight(prefix + ".w", {channels, channels, 3, 3});
  const auto conv = b.node("Conv", {x, w}, {1, channels, size, size}, prefix + ".conv",
                           {{"kernel_shape", std::vector<std::int64_t>{3, 3}},
                            {"pads", std::vector<std::int64_t>{1, 1, 1, 1}}});
  const auto bias = b.node("Add", {conv, b.weight(prefix + ".b", {channels, 1, 1})},
                           {1, channels, size, size}, prefix + ".bias");
  return b.node("Relu", {bias}, {1, channels, size, size}, prefix + ".relu");
}

} // namespace

TEST(Partition, PostDominatorOfADiamondIsItsJoin) {
  GraphBuilder b("m");
  const auto x = b.input("x", {4});
  const auto top = b.node("Relu", {x}, {4});
  const auto left = b.node("Sigmoid", {top}, {4});
  const auto right = b.node("Tanh", {top}, {4});
  b.output(b.node("Mul", {left, right}, {4}));
  const auto dominators = immediatePostDominators(b.graph);
  EXPECT_EQ(dominators, (std::vector<NodeId>{3, 3, 3, kVirtualSink}));
}

TEST(Partition, ConvBiasReluIsOneTask) {
  GraphBuilder b("resnet");
  b.output(convBlock(b, b.input("x", {1, 16, 8, 8}), "block", 16, 8));
  const auto tasks = partition(b.graph);
  ASSERT_EQ(tasks.size(), 1u);
  const Task& task = tasks[0];
  EXPECT_EQ(opsOf(task), (Ops{"Add", "Conv", "Relu"}));
  EXPECT_EQ(task.anchor, "Conv");
  EXPECT_EQ(task.pattern, PatternKind::OutEWiseFusable);
  EXPECT_EQ(task.flops, 2LL * 16 * 64 * 16 * 9 + 2 * 16 * 64);
  ASSERT_EQ(task.inputs.size(), 3u);
  EXPECT_EQ(task.inputs[0].kind, TaskInput::Kind::Activation);
  EXPECT_EQ(task.inputs[1].kind, TaskInput::Kind::Weight);
  EXPECT_EQ(task.bytesRead, 4 * (16 * 64 + 16 * 16 * 9 + 16));
  EXPECT_EQ(task.bytesWritten, 4 * 16 * 64);
  ASSERT_EQ(task.outputs.size(), 1u);
  EXPECT_EQ(task.nodes[task.outputs[0].index].op, "Relu");
  EXPECT_EQ(task.weights, (std::map<std::string, std::int64_t>{{"resnet", 1}}));
}

TEST(Partition, ResidualAddFusesIntoExactlyOneConv) {
  GraphBuilder b("resnet");
  const auto x = b.input("x", {1, 16, 8, 8});
  const auto main = convBlock(b, x, "a", 16, 8);
  const auto w = b.weight("b.w", {16, 16, 3, 3});
  const auto conv2 = b.node("Conv", {main, w, b.weight("b.b", {16})}, {1, 16, 8, 8}, "b.conv");
  const auto shortcut =
      b.node("Conv", {x, b.weight("s.w", {16, 16, 1, 1})}, {1, 16, 8, 8}, "shortcut");
  const auto sum = b.node("Add", {conv2, shortcut}, {1, 16, 8, 8}, "residual");
  b.output(b.node("Relu", {sum}, {1, 16, 8, 8}, "out"));
  std::vector<TaskOccurrence> occurrences;
  const auto tasks = partition(b.graph, &occurrences);
  ASSERT_EQ(tasks.size(), 3u);
  EXPECT_EQ(opsOf(tasks[0]), (Ops{"Add", "Conv", "Relu"}));
  // Execution order: the shortcut conv, which stays alone, runs before the task that adds it,
  // although that task's first node (b.conv) comes first in the model.
  EXPECT_EQ(opsOf(tasks[1]), (Ops{"Conv"}));
  EXPECT_EQ(opsOf(tasks[2]), (Ops{"Add", "Conv", "Relu"})); // b.conv + residual + relu
  // The shortcut conv is an activation input of the fused task, and its output leaves its task.
  EXPECT_EQ(tasks[2].inputs.size(), 4u);
  EXPECT_EQ(tasks[1].outputs.size(), 1u);
  ASSERT_EQ(occurrences.size(), 3u);
  EXPECT_EQ(occurrences[1].outputs, (std::vector<ValueId>{shortcut}));
  EXPECT_EQ(occurrences[2].outputs, (std::vector<ValueId>{b.graph.outputs[0]}));
  const auto& fusedInputs = occurrences[2].inputs;
  EXPECT_NE(std::find(fusedInputs.begin(), fusedInputs.end(), shortcut), fusedInputs.end());
  EXPECT_NE(std::find(fusedInputs.begin(), fusedInputs.end(), main), fusedInputs.end());
  for (std::size_t i = 0; i < occurrences.size(); ++i)
    EXPECT_EQ(occurrences[i].key, tasks[i].key);
}

TEST(Partition, GeluDiamondFusesIntoMatMul) {
  GraphBuilder b("bert");
  const auto x = b.input("x", {1, 128, 768});
  const auto matmul = b.node("MatMul", {x, b.weight("w", {768, 3072})}, {1, 128, 3072}, "fc1");
  const auto biased = b.node("Add", {matmul, b.weight("bias", {3072})}, {1, 128, 3072}, "fc1.b");
  const auto scaled = b.node("Div", {biased, b.weight("sqrt2", {}, {1.4142135})}, {1, 128, 3072});
  const auto erf = b.node("Erf", {scaled}, {1, 128, 3072});
  const auto shifted = b.node("Add", {erf, b.weight("one", {}, {1.0})}, {1, 128, 3072});
  const auto product = b.node("Mul", {biased, shifted}, {1, 128, 3072});
  const auto gelu = b.node("Mul", {product, b.weight("half", {}, {0.5})}, {1, 128, 3072});
  b.output(b.node("MatMul", {gelu, b.weight("w2", {3072, 768})}, {1, 128, 768}, "fc2"));
  const auto tasks = partition(b.graph);
  ASSERT_EQ(tasks.size(), 2u);
  EXPECT_EQ(opsOf(tasks[0]), (Ops{"Add", "Add", "Div", "Erf", "MatMul", "Mul", "Mul"}));
  EXPECT_EQ(opsOf(tasks[1]), (Ops{"MatMul"}));
  // Scalar constants keep their values, which then belong to the key.
  const auto withData = std::count_if(tasks[0].inputs.begin(), tasks[0].inputs.end(),
                                      [](const TaskInput& input) { return input.hasData; });
  EXPECT_EQ(withData, 3);
}

TEST(Partition, InjectiveChainFuses) {
  GraphBuilder b("bert");
  const auto x = b.input("x", {1, 128, 768});
  const auto split = b.node("Reshape", {x}, {1, 128, 12, 64}, "split_heads",
                            {{"shape", std::vector<std::int64_t>{1, 128, 12, 64}}});
  const auto heads = b.node("Transpose", {split}, {1, 12, 128, 64}, "heads",
                            {{"perm", std::vector<std::int64_t>{0, 2, 1, 3}}});
  b.output(b.node("MatMul", {heads, b.weight("k", {1, 12, 64, 128})}, {1, 12, 128, 128}));
  const auto tasks = partition(b.graph);
  ASSERT_EQ(tasks.size(), 2u);
  EXPECT_EQ(opsOf(tasks[0]), (Ops{"Reshape", "Transpose"}));
  EXPECT_EQ(tasks[0].pattern, PatternKind::Injective);
  EXPECT_EQ(tasks[0].anchor, "Reshape");
  EXPECT_EQ(tasks[0].flops, 0);
}

TEST(Partition, ReduceAbsorbsReshapeButNotItsConsumer) {
  GraphBuilder b("m");
  const auto x = b.input("x", {2, 64});
  const auto reshaped = b.node("Reshape", {x}, {2, 8, 8});
  const auto mean = b.node("ReduceMean", {reshaped}, {2, 8, 1});
  b.output(b.node("Relu", {mean}, {2, 8, 1}));
  const auto tasks = partition(b.graph);
  ASSERT_EQ(tasks.size(), 2u);
  EXPECT_EQ(opsOf(tasks[0]), (Ops{"ReduceMean", "Reshape"}));
  EXPECT_EQ(tasks[0].anchor, "ReduceMean");
  EXPECT_EQ(tasks[0].pattern, PatternKind::CommReduce);
  EXPECT_EQ(opsOf(tasks[1]), (Ops{"Relu"}));
}

TEST(Partition, ElementWiseBranchesJoinBeforeAReduction) {
  // x -> Sigmoid, x -> Tanh, Mul -> Softmax: the whole diamond folds into the Softmax task.
  GraphBuilder b("m");
  const auto x = b.input("x", {4, 16});
  const auto top = b.node("Relu", {x}, {4, 16});
  const auto left = b.node("Sigmoid", {top}, {4, 16});
  const auto right = b.node("Tanh", {top}, {4, 16});
  const auto product = b.node("Mul", {left, right}, {4, 16});
  b.output(b.node("Softmax", {product}, {4, 16}));
  const auto tasks = partition(b.graph);
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(opsOf(tasks[0]), (Ops{"Mul", "Relu", "Sigmoid", "Softmax", "Tanh"}));
}

TEST(Partition, OpaqueStandsAlone) {
  GraphBuilder b("m");
  const auto x = b.input("x", {1, 8, 4, 4});
  const auto conv = b.node("Conv", {x, b.weight("w", {8, 8, 1, 1})}, {1, 8, 4, 4});
  const auto custom = b.node("MyCustomOp", {conv}, {1, 8, 4, 4});
  b.output(b.node("Relu", {custom}, {1, 8, 4, 4}));
  const auto tasks = partition(b.graph);
  ASSERT_EQ(tasks.size(), 3u);
  EXPECT_EQ(tasks[1].pattern, PatternKind::Opaque);
  EXPECT_EQ(tasks[1].anchor, "MyCustomOp");
}

TEST(Partition, SharedOrExportedResultsStopFusion) {
  // The conv output is read by a Relu and a MaxPool, and the Relu's result leaves the graph, so
  // nothing element-wise post-dominates the conv: it writes its result and stands alone.
  GraphBuilder b("m");
  const auto x = b.input("x", {1, 8, 4, 4});
  const auto conv = b.node("Conv", {x, b.weight("w", {8, 8, 1, 1})}, {1, 8, 4, 4});
  const auto relu = b.node("Relu", {conv}, {1, 8, 4, 4});
  const auto pool = b.node("MaxPool", {conv}, {1, 8, 2, 2}, "",
                           {{"kernel_shape", std::vector<std::int64_t>{2, 2}}});
  b.output(relu);
  b.output(pool);
  const auto tasks = partition(b.graph);
  ASSERT_EQ(tasks.size(), 3u);
  EXPECT_EQ(opsOf(tasks[0]), (Ops{"Conv"}));
  EXPECT_EQ(tasks[0].bytesWritten, 4 * 8 * 16);
}

TEST(Partition, EqualBranchesShareAKeyWhateverTheirNamesAndOrder) {
  // Two structurally equal branches, named differently, listed in a different (still
  // topological) order: conv -> {Sigmoid, Tanh} -> Mul.
  GraphBuilder b("model");
  const auto x = b.input("x", {1, 8, 4, 4});
  const Shape shape{1, 8, 4, 4};
  const auto convA = b.node("Conv", {x, b.weight("a.w", {8, 8, 1, 1})}, shape, "a.conv");
  const auto convB = b.node("Conv", {x, b.weight("b.w", {8, 8, 1, 1})}, shape, "b.conv");
  const auto sigmoidA = b.node("Sigmoid", {convA}, shape, "a.sigmoid");
  const auto tanhB = b.node("Tanh", {convB}, shape, "b.tanh");
  const auto tanhA = b.node("Tanh", {convA}, shape, "a.tanh");
  const auto sigmoidB = b.node("Sigmoid", {convB}, shape, "b.sigmoid");
  b.output(b.node("Mul", {sigmoidA, tanhA}, shape, "a.mul"));
  b.output(b.node("Mul", {sigmoidB, tanhB}, shape, "b.mul"));
  const auto tasks = partition(b.graph);
  ASSERT_EQ(tasks.size(), 2u);
  EXPECT_EQ(tasks[0].nodes.size(), 4u);
  EXPECT_EQ(tasks[0].key, tasks[1].key);
  EXPECT_EQ(taskToJson(tasks[0]).dump(), taskToJson(tasks[1]).dump());
  const auto merged = mergeTasks(tasks);
  ASSERT_EQ(merged.size(), 1u);
  EXPECT_EQ(merged[0].totalWeight(), 2);
  EXPECT_EQ(merged[0].weights.at("model"), 2);
}

TEST(Partition, DifferentShapeGivesDifferentKey) {
  auto keyFor = [](std::int64_t size) {
    GraphBuilder b("m");
    b.output(convBlock(b, b.input("x", {1, 16, size, size}), "block", 16, size));
    return partition(b.graph).at(0).key;
  };
  EXPECT_EQ(keyFor(8), keyFor(8));
  EXPECT_NE(keyFor(8), keyFor(16));
}

TEST(Partition, SmallConstantValuesArePartOfTheKey) {
  auto keyFor = [](double exponent) {
    GraphBuilder b("m");
    const auto x = b.input("x", {4, 4});
    b.output(b.node("Pow", {x, b.weight("e", {}, {exponent})}, {4, 4}));
    return partition(b.graph).at(0).key;
  };
  EXPECT_NE(keyFor(2.0), keyFor(3.0));
}

TEST(Partition, LearnedParameterValuesDoNotSplitKeys) {
  // Biases under 1 KiB stay inline in the models, each with its own values; equal layers must
  // still share a key.
  auto keyFor = [](std::vector<double> bias) {
    GraphBuilder b("m");
    const auto x = b.input("x", {1, 4, 8, 8});
    const auto w = b.weight("w", {4, 4, 1, 1});
    b.output(b.node("Conv", {x, w, b.weight("b", {4}, std::move(bias))}, {1, 4, 8, 8}));
    const auto tasks = partition(b.graph);
    EXPECT_FALSE(tasks.at(0).inputs.at(2).hasData);
    return tasks.at(0).key;
  };
  EXPECT_EQ(keyFor({0.1, 0.2, 0.3, 0.4}), keyFor({-1.0, 2.0, 0.5, 0.0}));
}

TEST(Partition, MergeAcrossModelsSumsWeightsAndKeepsFirstSeenOrder) {
  auto model = [](const std::string& name) {
    GraphBuilder b(name);
    const auto x = b.input("x", {1, 16, 8, 8});
    const auto first = convBlock(b, x, "one", 16, 8);
    const auto pooled = b.node("MaxPool", {first}, {1, 16, 4, 4}, "pool",
                               {{"kernel_shape", std::vector<std::int64_t>{2, 2}}});
    b.output(convBlock(b, pooled, "two", 16, 4));
    return partition(b.graph);
  };
  auto tasks = model("resnet18");
  auto more = model("resnet50");
  const std::string firstKey = tasks[0].key;
  const std::string poolKey = tasks[1].key;
  tasks.insert(tasks.end(), more.begin(), more.end());
  const auto merged = mergeTasks(tasks);
  ASSERT_EQ(merged.size(), 3u);
  EXPECT_EQ(merged[0].key, firstKey);
  EXPECT_EQ(merged[1].key, poolKey);
  EXPECT_EQ(merged[1].weights,
            (std::map<std::string, std::int64_t>{{"resnet18", 1}, {"resnet50", 1}}));
  EXPECT_EQ(merged[1].totalWeight(), 2);
}

TEST(Partition, PureCopiesAreStillTasks) {
  GraphBuilder b("m");
  const auto x = b.input("x", {2, 3, 4});
  b.output(b.node("Flatten", {x}, {2, 12}));
  const auto tasks = partition(b.graph);
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].flops, 0);
  EXPECT_EQ(tasks[0].bytesRead, tasks[0].bytesWritten);
}
