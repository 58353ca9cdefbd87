// Canonical form, workload key and tasks.jsonl round trip of Task, on hand-built tasks: the key
// must not depend on how a model lists or names things, must never drift between builds (one
// value is pinned), and the reader must name the field of any bad entry.
#include "graph/Task.h"

#include <cmath>
#include <functional>
#include <gtest/gtest.h>
#include <limits>

using namespace clustune::graph;
using clustune::Error;
using clustune::ErrorContext;

namespace {

TaskInput activation(Shape shape) {
  return TaskInput{.shape = std::move(shape)};
}

TaskInput weight(Shape shape, std::vector<double> data = {}) {
  TaskInput input{.shape = std::move(shape), .kind = TaskInput::Kind::Weight};
  input.hasData = !data.empty();
  input.floatData = std::move(data);
  return input;
}

TaskNode node(const std::string& op, std::vector<TaskValueRef> inputs, Shape shape,
              PatternKind pattern = PatternKind::ElemWise, Attributes attributes = {}) {
  return TaskNode{.op = op,
                  .attributes = std::move(attributes),
                  .inputs = std::move(inputs),
                  .outputShapes = {std::move(shape)},
                  .outputTypes = {DataType::Float32},
                  .pattern = pattern};
}

using Ref = TaskValueRef;

// conv -> {sigmoid, tanh} -> mul(sigmoid, add(tanh, bias)); inputs x, w, bias.
Task swishLikeTask(bool reversedListing) {
  Task task;
  const Shape shape{1, 8, 4, 4};
  const Attributes convAttributes{{"kernel_shape", std::vector<std::int64_t>{1, 1}}};
  if (!reversedListing) {
    task.inputs = {activation(shape), weight({8, 8, 1, 1}), weight({8, 1, 1})};
    task.nodes = {node("Conv", {Ref::input(0), Ref::input(1)}, shape, PatternKind::OutEWiseFusable,
                       convAttributes),
                  node("Sigmoid", {Ref::node(0, 0)}, shape), node("Tanh", {Ref::node(0, 0)}, shape),
                  node("Add", {Ref::node(2, 0), Ref::input(2)}, shape, PatternKind::Broadcast),
                  node("Mul", {Ref::node(1, 0), Ref::node(3, 0)}, shape)};
    task.outputs = {Ref::node(4, 0)};
  } else {
    task.inputs = {weight({8, 1, 1}), weight({8, 8, 1, 1}), activation(shape)};
    task.nodes = {node("Conv", {Ref::input(2), Ref::input(1)}, shape, PatternKind::OutEWiseFusable,
                       convAttributes),
                  node("Tanh", {Ref::node(0, 0)}, shape),
                  node("Add", {Ref::node(1, 0), Ref::input(0)}, shape, PatternKind::Broadcast),
                  node("Sigmoid", {Ref::node(0, 0)}, shape),
                  node("Mul", {Ref::node(3, 0), Ref::node(2, 0)}, shape)};
    task.outputs = {Ref::node(4, 0)};
  }
  task.weights = {{"model", 1}};
  canonicalizeTask(task);
  return task;
}

// A task touching every JSON feature: all attribute kinds, an omitted operand, constant data of
// both kinds, a two-output node, two models.
Task richTask() {
  Task task;
  TaskInput indices{.shape = {2}, .dtype = DataType::Int64, .kind = TaskInput::Kind::Weight};
  indices.hasData = true;
  indices.intData = {3, -1};
  task.inputs = {activation({4, 6}), weight({}, {2.0}), indices};
  task.nodes.push_back(node("Pow", {Ref::input(0), Ref::input(1)}, {4, 6}, PatternKind::Broadcast,
                            {{"alpha", 0.1},
                             {"axis", std::int64_t{-1}},
                             {"mode", std::string("constant")},
                             {"perm", std::vector<std::int64_t>{1, 0}},
                             {"scales", std::vector<double>{1e-5, 1.4142135}},
                             {"empty", std::vector<std::int64_t>{}},
                             {"max", std::numeric_limits<double>::infinity()}}));
  TaskNode split = node("Split", {Ref::node(0, 0), Ref::omitted()}, {4, 3}, PatternKind::Injective,
                        {{"axis", std::int64_t{1}}});
  split.outputShapes.push_back({4, 3});
  split.outputTypes.push_back(DataType::Float32);
  task.nodes.push_back(split);
  task.nodes.push_back(
      node("Gather", {Ref::node(1, 1), Ref::input(2)}, {2, 3}, PatternKind::Injective));
  task.outputs = {Ref::node(1, 0), Ref::node(2, 0)};
  task.flops = 24;
  task.weights = {{"bert-base", 2}, {"bert-tiny", 1}};
  canonicalizeTask(task);
  return task;
}

nlohmann::json roundTripJson(const Task& task) {
  return nlohmann::json::parse(taskToJson(task).dump());
}

std::string errorFor(const nlohmann::json& entry) {
  try {
    taskFromJson(entry, ErrorContext{.file = "tasks.jsonl", .line = 3});
  } catch (const Error& error) {
    return error.what();
  }
  return "no error";
}

} // namespace

TEST(Task, KeyIgnoresListingOrderOfNodesAndInputs) {
  const Task first = swishLikeTask(false);
  const Task second = swishLikeTask(true);
  EXPECT_EQ(first.key, second.key);
  EXPECT_EQ(taskToJson(first).dump(), taskToJson(second).dump());
  EXPECT_EQ(first.anchor, "Conv");
  EXPECT_EQ(first.pattern, PatternKind::OutEWiseFusable);
  // Inputs are numbered by first use: the conv reads x then w.
  EXPECT_EQ(first.inputs[0].kind, TaskInput::Kind::Activation);
  EXPECT_EQ(first.inputs[1].shape, (Shape{8, 8, 1, 1}));
}

TEST(Task, SymmetricOperandsCanonicaliseAlike) {
  // Add(Relu(a), Relu(b)) with a and b alike: listing Relu(b) first must not change anything.
  auto build = [](bool bFirst) {
    Task task;
    task.inputs = {activation({4}), activation({4})};
    const int reluA = bFirst ? 1 : 0;
    const int reluB = bFirst ? 0 : 1;
    task.nodes.resize(2);
    task.nodes[reluA] = node("Relu", {Ref::input(0)}, {4});
    task.nodes[reluB] = node("Relu", {Ref::input(1)}, {4});
    task.nodes.push_back(node("Sub", {Ref::node(reluA, 0), Ref::node(reluB, 0)}, {4}));
    task.outputs = {Ref::node(2, 0)};
    canonicalizeTask(task);
    return task;
  };
  EXPECT_EQ(taskToJson(build(false)).dump(), taskToJson(build(true)).dump());
}

TEST(Task, IndependentEqualChainsCanonicaliseAlike) {
  // Relu(a) -> Exp and Relu(b) -> Exp, both written: however the four nodes are listed, each Exp
  // must follow its own Relu in the canonical form.
  auto build = [](std::vector<int> listing) {
    // listing[i] = position of: 0 Relu(a), 1 Relu(b), 2 Exp(Relu(a)), 3 Exp(Relu(b)).
    Task task;
    task.inputs = {activation({4}), activation({4})};
    task.nodes.resize(4);
    task.nodes[listing[0]] = node("Relu", {Ref::input(0)}, {4});
    task.nodes[listing[1]] = node("Relu", {Ref::input(1)}, {4});
    task.nodes[listing[2]] = node("Exp", {Ref::node(listing[0], 0)}, {4});
    task.nodes[listing[3]] = node("Exp", {Ref::node(listing[1], 0)}, {4});
    task.outputs = {Ref::node(listing[2], 0), Ref::node(listing[3], 0)};
    canonicalizeTask(task);
    return taskToJson(task).dump();
  };
  const std::string expected = build({0, 1, 2, 3});
  EXPECT_EQ(build({1, 0, 3, 2}), expected);
  EXPECT_EQ(build({0, 1, 3, 2}), expected);
  EXPECT_EQ(build({0, 2, 1, 3}), expected);
  EXPECT_EQ(build({2, 0, 3, 1}), expected);
}

TEST(Task, KeyChangesWithStructure) {
  Task base = swishLikeTask(false);
  Task otherShape = base;
  otherShape.inputs[0].shape = {1, 8, 8, 8};
  EXPECT_NE(computeTaskKey(otherShape), base.key);
  Task otherAttribute = base;
  otherAttribute.nodes[0].attributes["group"] = std::int64_t{2};
  EXPECT_NE(computeTaskKey(otherAttribute), base.key);
  Task otherEdge = base;
  std::swap(otherEdge.nodes.back().inputs[0], otherEdge.nodes.back().inputs[1]);
  EXPECT_NE(computeTaskKey(otherEdge), base.key);
  Task otherConstant = richTask();
  otherConstant.inputs[1].floatData = {3.0};
  EXPECT_NE(computeTaskKey(otherConstant), richTask().key);
}

TEST(Task, KeyIsStableAcrossCallsAndBuilds) {
  EXPECT_EQ(swishLikeTask(false).key, swishLikeTask(false).key);
  // Pinned: if this changes, every tasks.jsonl, record and cost model keyed by it is orphaned.
  // Change it only together with the "clustune.task.v1" tag in computeTaskKey.
  EXPECT_EQ(swishLikeTask(false).key, "a39e1e7d181101da");
}

TEST(Task, JsonRoundTripIsIdentical) {
  const Task task = richTask();
  const std::string written = taskToJson(task).dump();
  const Task read = taskFromJson(nlohmann::json::parse(written), {});
  EXPECT_EQ(taskToJson(read).dump(), written);
  EXPECT_EQ(computeTaskKey(read), task.key);
  EXPECT_EQ(read.totalWeight(), 3);
  EXPECT_TRUE(std::isinf(std::get<double>(read.nodes[0].attributes.at("max"))));
}

TEST(Task, JsonKeepsTheDocumentedFieldOrder) {
  const auto entry = taskToJson(richTask());
  std::vector<std::string> fields;
  for (const auto& item : entry.items())
    fields.push_back(item.key());
  EXPECT_EQ(fields, (std::vector<std::string>{"v", "key", "anchor", "pattern", "weight", "weights",
                                              "flops", "bytes_read", "bytes_written", "inputs",
                                              "nodes", "outputs"}));
  const std::string text = entry.dump();
  EXPECT_EQ(text.rfind("{\"v\":1,\"key\":\"", 0), 0u);
  EXPECT_NE(text.find("{\"shape\":[],\"dtype\":\"float32\",\"kind\":\"weight\",\"value\":[2.0]}"),
            std::string::npos);
  EXPECT_NE(text.find("\"inputs\":[{\"node\":0,\"output\":0},null]"), std::string::npos);
}

TEST(Task, ReaderNamesTheBadField) {
  const nlohmann::json good = roundTripJson(richTask());
  ASSERT_EQ(errorFor(good), "no error");
  struct Case {
    std::function<void(nlohmann::json&)> damage;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {[](auto& e) { e.erase("flops"); }, "missing field 'flops'"},
      {[](auto& e) { e["flops"] = "many"; }, "field 'flops' has the wrong type (string"},
      {[](auto& e) { e["v"] = 2; }, "field 'v' is 2"},
      {[](auto& e) { e["key"] = "xyz"; }, "field 'key' must be 16 lower-case hex digits"},
      {[](auto& e) { e["weight"] = 7; }, "field 'weight' is 7"},
      {[](auto& e) { e["weights"]["bert-tiny"] = 0; },
       "field 'weights.bert-tiny' must be at least 1"},
      {[](auto& e) { e["pattern"] = "Fancy"; }, "field 'pattern' names an unknown pattern kind"},
      {[](auto& e) { e["inputs"][1]["dtype"] = "float128"; }, "field 'inputs[1].dtype'"},
      {[](auto& e) { e["inputs"][0]["shape"][0] = -1; }, "field 'inputs[0].shape[0]'"},
      {[](auto& e) { e["inputs"][0]["kind"] = "bias"; }, "field 'inputs[0].kind'"},
      {[](auto& e) { e["inputs"][0]["value"] = {1.0}; }, "field 'inputs[0].value'"},
      {[](auto& e) {
         e["inputs"][1]["value"] = {1.0, 2.0};
       },
       "field 'inputs[1].value' has 2"},
      {[](auto& e) { e["nodes"][0]["op"] = 5; }, "field 'nodes[0].op' has the wrong type"},
      {[](auto& e) { e["nodes"][1].erase("attrs"); }, "missing field 'nodes[1].attrs'"},
      {[](auto& e) {
         e["nodes"][0]["attrs"]["perm"] = {1, "x"};
       },
       "field 'nodes[0].attrs.perm[1]'"},
      {[](auto& e) {
         e["nodes"][1]["inputs"][0] = {{"node", 5}, {"output", 0}};
       },
       "field 'nodes[1].inputs[0].node' refers to node 5"},
      {[](auto& e) { e["nodes"][2]["inputs"][0]["output"] = 2; },
       "field 'nodes[2].inputs[0].output' refers to output 2"},
      {[](auto& e) {
         e["nodes"][0]["inputs"][0] = {{"input", 9}};
       },
       "field 'nodes[0].inputs[0].input' refers to input 9"},
      {[](auto& e) { e["nodes"][0]["outputs"][0]["dtype"] = 1; },
       "field 'nodes[0].outputs[0].dtype' has the wrong type"},
      {[](auto& e) { e["outputs"] = nlohmann::json::array(); }, "field 'outputs' is empty"},
      {[](auto& e) {
         e["outputs"][0] = {{"input", 0}};
       },
       "missing field 'outputs[0].node'"},
      {[](auto& e) { e["nodes"] = nlohmann::json::array(); }, "field 'nodes' is empty"},
  };
  for (const Case& testCase : cases) {
    nlohmann::json entry = good;
    testCase.damage(entry);
    const std::string message = errorFor(entry);
    EXPECT_NE(message.find(testCase.expected), std::string::npos)
        << "expected \"" << testCase.expected << "\" in \"" << message << "\"";
    EXPECT_EQ(message.rfind("tasks.jsonl:3: ", 0), 0u) << message;
  }
}

TEST(Task, ReaderRejectsANonObject) {
  EXPECT_NE(errorFor(nlohmann::json::array()).find("must be a JSON object"), std::string::npos);
}
