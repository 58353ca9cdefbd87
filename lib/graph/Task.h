// The tuning task (DESIGN §4.2): one fused subgraph as plain, name-free data, plus its workload
// key and its tasks.jsonl form. The partitioner produces tasks from a Graph; every later tool
// (embed, measure, tune) reads them back from tasks.jsonl and never sees the model again.
//
// The key identifies a subgraph by structure alone, so that equal subgraphs in one or many models
// share it: it hashes a canonical form that does not depend on tensor or node names, nor on the
// order in which a model lists independent nodes. canonicalizeTask() puts a task into that form;
// nodes and inputs are stored in canonical order, so equal subgraphs serialise identically.
#pragma once

#include "graph/Graph.h"
#include "support/Error.h"

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace clustune::graph {

// A constant this small (a Pow exponent, an attention scale, GELU's 0.5) is a hyper-parameter of
// the subgraph: its value travels with the task and is part of the key. Longer constants are
// learned parameters (biases, per-channel scales) whose values do not change the code to tune;
// keying on them would give every layer its own key, since the models keep biases under 1 KiB
// inline (models/README.md).
constexpr std::int64_t kKeyedConstantMaxElements = 1;

struct TaskInput {
  enum class Kind { Activation, Weight };
  Shape shape;
  DataType dtype = DataType::Float32;
  Kind kind = Kind::Activation;
  // Constant payload of a Weight input: only when the model carried it and it has at most
  // kKeyedConstantMaxElements elements. Floating-point dtypes use floatData, others intData.
  bool hasData = false;
  std::vector<double> floatData = {};
  std::vector<std::int64_t> intData = {};

  std::int64_t bytes() const { return elementCount(shape) * dataTypeBytes(dtype); }
};

// Where a node operand comes from: a task input, an output of an earlier node of the task, or
// nothing (an omitted optional operand, e.g. a Conv without bias).
struct TaskValueRef {
  enum class Kind { Input, Node, Omitted };
  Kind kind = Kind::Omitted;
  int index = -1; // input index or node index
  int output = 0; // which output of the node (0 for inputs)

  static TaskValueRef input(int index) { return {Kind::Input, index, 0}; }
  static TaskValueRef node(int index, int output) { return {Kind::Node, index, output}; }
  static TaskValueRef omitted() { return {}; }
  friend bool operator==(const TaskValueRef&, const TaskValueRef&) = default;
};

struct TaskNode {
  std::string op;
  Attributes attributes;
  std::vector<TaskValueRef> inputs; // refer to task inputs and earlier nodes only
  std::vector<Shape> outputShapes;
  std::vector<DataType> outputTypes;
  PatternKind pattern = PatternKind::Opaque;
};

struct Task {
  std::string key;    // 16 hex digits; see canonicalizeTask
  std::string anchor; // op of the OutEWiseFusable node, else of the CommReduce node, else first op
  PatternKind pattern = PatternKind::Opaque; // the strongest pattern kind among the nodes
  std::vector<TaskInput> inputs;
  std::vector<TaskNode> nodes;                 // in canonical topological order
  std::vector<TaskValueRef> outputs;           // node outputs the task writes to memory
  std::int64_t flops = 0;                      // per occurrence
  std::int64_t bytesRead = 0;                  // all inputs, activations and weights
  std::int64_t bytesWritten = 0;               // all outputs
  std::map<std::string, std::int64_t> weights; // model name -> occurrences

  std::int64_t totalWeight() const;
};

// Reorders nodes, inputs and outputs canonically, then sets key, anchor, pattern, bytesRead and
// bytesWritten (flops and weights are the caller's: they need the graph). Node order: topological,
// ties broken by structural hashes (a Merkle hash over producers, then one over consumers), then
// by which already placed nodes and inputs they read; input order: first use in that node order;
// output order: by node, then output index. Idempotent.
// With `order`, reports where each canonical node and input came from, so a caller that knows
// which graph values the original positions stood for can keep track of them.
struct CanonicalOrder {
  std::vector<int> nodeSource;  // canonical node i was node nodeSource[i]
  std::vector<int> inputSource; // canonical input i was input inputSource[i]
};
void canonicalizeTask(Task& task, CanonicalOrder* order = nullptr);

// The key of a task already in canonical order: a StableHasher hash of every structural field.
std::string computeTaskKey(const Task& task);

// One tasks.jsonl entry (docs/formats.md), fields in the documented order; ordered_json keeps that
// order, so write it with dump() rather than through a plain nlohmann::json (which sorts keys).
// Implemented in TaskJson.cpp.
nlohmann::ordered_json taskToJson(const Task& task);
// Validates every field; throws clustune::Error naming the bad field, with `context` (file, line).
Task taskFromJson(const nlohmann::json& entry, const ErrorContext& context);

} // namespace clustune::graph
