// See Task.h. The canonical form and the workload key; TaskJson.cpp holds the tasks.jsonl form.
#include "graph/Task.h"

#include "support/Hash.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <tuple>

namespace clustune::graph {

std::int64_t Task::totalWeight() const {
  std::int64_t total = 0;
  for (const auto& [model, count] : weights)
    total += count;
  return total;
}

namespace {

// ---- Canonical form and key -------------------------------------------------------------------

const char* inputKindName(TaskInput::Kind kind) {
  return kind == TaskInput::Kind::Weight ? "weight" : "activation";
}

void hashShape(StableHasher& hasher, const Shape& shape) {
  hasher.add(static_cast<std::int64_t>(shape.size()));
  for (std::int64_t extent : shape)
    hasher.add(extent);
}

void hashAttributes(StableHasher& hasher, const Attributes& attributes) {
  hasher.add(static_cast<std::int64_t>(attributes.size()));
  for (const auto& [name, value] : attributes) {
    hasher.add(name);
    if (const auto* integer = std::get_if<std::int64_t>(&value)) {
      hasher.add("int").add(*integer);
    } else if (const auto* real = std::get_if<double>(&value)) {
      hasher.add("float").add(*real);
    } else if (const auto* text = std::get_if<std::string>(&value)) {
      hasher.add("string").add(*text);
    } else if (const auto* integers = std::get_if<std::vector<std::int64_t>>(&value)) {
      hasher.add("ints").add(static_cast<std::int64_t>(integers->size()));
      for (std::int64_t item : *integers)
        hasher.add(item);
    } else {
      const auto& reals = std::get<std::vector<double>>(value);
      // JSON cannot tell an empty float list from an empty int list; hash them alike so that a
      // task read back from tasks.jsonl keeps its key.
      hasher.add(reals.empty() ? "ints" : "floats").add(static_cast<std::int64_t>(reals.size()));
      for (double item : reals)
        hasher.add(item);
    }
  }
}

void hashInput(StableHasher& hasher, const TaskInput& input) {
  hasher.add(inputKindName(input.kind)).add(dataTypeName(input.dtype));
  hashShape(hasher, input.shape);
  hasher.add(static_cast<std::int64_t>(input.hasData));
  if (input.hasData) {
    hasher.add(static_cast<std::int64_t>(input.floatData.size() + input.intData.size()));
    for (double item : input.floatData)
      hasher.add(item);
    for (std::int64_t item : input.intData)
      hasher.add(item);
  }
}

// Everything about a node except where its operands come from.
void hashNodeBody(StableHasher& hasher, const TaskNode& node) {
  hasher.add(node.op).add(patternKindName(node.pattern));
  hashAttributes(hasher, node.attributes);
  hasher.add(static_cast<std::int64_t>(node.outputShapes.size()));
  for (std::size_t i = 0; i < node.outputShapes.size(); ++i) {
    hashShape(hasher, node.outputShapes[i]);
    hasher.add(dataTypeName(node.outputTypes[i]));
  }
}

void hashRef(StableHasher& hasher, const TaskValueRef& ref) {
  hasher.add(static_cast<std::int64_t>(ref.kind)).add(std::int64_t{ref.index});
  hasher.add(std::int64_t{ref.output});
}

struct Use {
  int consumer;
  int slot;
};

// Structural hashes that do not depend on names or positions. `forward` is the Merkle hash over
// a node's producers (what it computes); `backward` hashes how its results are used (which slot
// of which consumer, whether the task writes them), and separates nodes that compute the same
// thing from symmetric inputs, e.g. the two Relus of Add(Relu(a), Relu(b)).
struct StructuralHashes {
  std::vector<std::uint64_t> forward;
  std::vector<std::uint64_t> backward;
};

StructuralHashes structuralHashes(const Task& task, const std::vector<std::vector<Use>>& uses) {
  const auto nodeCount = static_cast<int>(task.nodes.size());
  std::vector<std::uint64_t> inputHashes;
  for (const TaskInput& input : task.inputs) {
    StableHasher hasher;
    hashInput(hasher, input);
    inputHashes.push_back(hasher.finish());
  }
  StructuralHashes hashes{std::vector<std::uint64_t>(nodeCount),
                          std::vector<std::uint64_t>(nodeCount)};
  for (int id = 0; id < nodeCount; ++id) {
    StableHasher hasher;
    hashNodeBody(hasher, task.nodes[id]);
    for (const TaskValueRef& ref : task.nodes[id].inputs) {
      hasher.add(static_cast<std::int64_t>(ref.kind));
      if (ref.kind == TaskValueRef::Kind::Input)
        hasher.add(static_cast<std::int64_t>(inputHashes[ref.index]));
      else if (ref.kind == TaskValueRef::Kind::Node)
        hasher.add(static_cast<std::int64_t>(hashes.forward[ref.index]))
            .add(std::int64_t{ref.output});
    }
    hashes.forward[id] = hasher.finish();
  }
  for (int id = nodeCount - 1; id >= 0; --id) {
    std::vector<std::uint64_t> useHashes;
    for (const Use& use : uses[id]) {
      int output = task.nodes[use.consumer].inputs[use.slot].output;
      StableHasher hasher;
      hasher.add(std::int64_t{output}).add(std::int64_t{use.slot});
      hasher.add(static_cast<std::int64_t>(hashes.forward[use.consumer]));
      hasher.add(static_cast<std::int64_t>(hashes.backward[use.consumer]));
      useHashes.push_back(hasher.finish());
    }
    for (const TaskValueRef& ref : task.outputs)
      if (ref.index == id)
        useHashes.push_back(
            StableHasher().add("task output").add(std::int64_t{ref.output}).finish());
    std::sort(useHashes.begin(), useHashes.end());
    StableHasher hasher;
    for (std::uint64_t useHash : useHashes)
      hasher.add(static_cast<std::int64_t>(useHash));
    hashes.backward[id] = hasher.finish();
  }
  return hashes;
}

// Where a ready node's operands come from, in canonical terms: the position of each producer
// already placed and the number of each input already numbered. Among structurally equal ready
// nodes this follows the choices made so far, so that two equal independent chains come out in
// the same interleaving however the model listed them.
using OperandSignature = std::vector<std::pair<int, int>>;

OperandSignature operandSignature(const TaskNode& node, const std::vector<int>& nodePosition,
                                  const std::vector<int>& inputNumber) {
  OperandSignature signature;
  for (const TaskValueRef& ref : node.inputs) {
    if (ref.kind == TaskValueRef::Kind::Node)
      signature.push_back({0, nodePosition[ref.index] * 1024 + ref.output});
    else if (ref.kind == TaskValueRef::Kind::Input)
      signature.push_back({1, inputNumber[ref.index]}); // INT_MAX while not yet numbered
    else
      signature.push_back({2, 0});
  }
  return signature;
}

// Kahn's algorithm, always taking the ready node with the smallest structural hashes, then the
// smallest operand signature; the original position only breaks ties between interchangeable
// nodes. Tasks are small (tens of nodes), so a linear scan of the ready list is fine.
std::vector<int> canonicalNodeOrder(const Task& task) {
  const auto nodeCount = static_cast<int>(task.nodes.size());
  std::vector<std::vector<Use>> uses(nodeCount);
  std::vector<int> pendingOperands(nodeCount, 0);
  for (int id = 0; id < nodeCount; ++id) {
    const auto& inputs = task.nodes[id].inputs;
    for (int slot = 0; slot < static_cast<int>(inputs.size()); ++slot) {
      if (inputs[slot].kind != TaskValueRef::Kind::Node)
        continue;
      assert(inputs[slot].index >= 0 && inputs[slot].index < id && "nodes must be topological");
      uses[inputs[slot].index].push_back({id, slot});
      ++pendingOperands[id];
    }
  }
  const StructuralHashes hashes = structuralHashes(task, uses);
  std::vector<int> ready;
  for (int id = 0; id < nodeCount; ++id)
    if (pendingOperands[id] == 0)
      ready.push_back(id);
  std::vector<int> order;
  std::vector<int> nodePosition(nodeCount, -1);
  std::vector<int> inputNumber(task.inputs.size(), std::numeric_limits<int>::max());
  int inputsNumbered = 0;
  auto sortKey = [&](int id) {
    return std::tuple(hashes.forward[id], hashes.backward[id],
                      operandSignature(task.nodes[id], nodePosition, inputNumber), id);
  };
  while (!ready.empty()) {
    auto best = std::min_element(ready.begin(), ready.end(), [&](int left, int right) {
      return sortKey(left) < sortKey(right);
    });
    const int id = *best;
    ready.erase(best);
    nodePosition[id] = static_cast<int>(order.size());
    order.push_back(id);
    for (const TaskValueRef& ref : task.nodes[id].inputs)
      if (ref.kind == TaskValueRef::Kind::Input &&
          inputNumber[ref.index] == std::numeric_limits<int>::max())
        inputNumber[ref.index] = inputsNumbered++;
    for (const Use& use : uses[id])
      if (--pendingOperands[use.consumer] == 0)
        ready.push_back(use.consumer);
  }
  assert(static_cast<int>(order.size()) == nodeCount);
  return order;
}

PatternKind strongestPattern(const Task& task) {
  PatternKind strongest = PatternKind::ElemWise;
  for (const TaskNode& node : task.nodes)
    strongest = std::max(strongest, node.pattern);
  return strongest;
}

std::string anchorOp(const Task& task) {
  for (PatternKind kind : {PatternKind::OutEWiseFusable, PatternKind::CommReduce})
    for (const TaskNode& node : task.nodes)
      if (node.pattern == kind)
        return node.op;
  return task.nodes.empty() ? std::string() : task.nodes.front().op;
}

} // namespace

void canonicalizeTask(Task& task, CanonicalOrder* canonicalOrder) {
  const std::vector<int> order = canonicalNodeOrder(task);
  std::vector<int> newNodeIndex(task.nodes.size());
  for (int position = 0; position < static_cast<int>(order.size()); ++position)
    newNodeIndex[order[position]] = position;

  std::vector<int> newInputIndex(task.inputs.size(), -1);
  std::vector<int> inputSource;
  std::vector<TaskInput> inputs;
  std::vector<TaskNode> nodes;
  for (int oldId : order) {
    TaskNode node = std::move(task.nodes[oldId]);
    for (TaskValueRef& ref : node.inputs) {
      if (ref.kind == TaskValueRef::Kind::Node) {
        ref.index = newNodeIndex[ref.index];
      } else if (ref.kind == TaskValueRef::Kind::Input) {
        int& mapped = newInputIndex[ref.index];
        if (mapped < 0) {
          mapped = static_cast<int>(inputs.size());
          inputSource.push_back(ref.index);
          inputs.push_back(std::move(task.inputs[ref.index]));
        }
        ref.index = mapped;
      }
    }
    nodes.push_back(std::move(node));
  }
  assert(inputs.size() == task.inputs.size() && "every task input is read by a node");
  task.inputs = std::move(inputs);
  task.nodes = std::move(nodes);
  if (canonicalOrder)
    *canonicalOrder = {order, std::move(inputSource)};

  for (TaskValueRef& ref : task.outputs) {
    assert(ref.kind == TaskValueRef::Kind::Node);
    ref.index = newNodeIndex[ref.index];
  }
  std::sort(task.outputs.begin(), task.outputs.end(), [](const auto& left, const auto& right) {
    return std::tie(left.index, left.output) < std::tie(right.index, right.output);
  });
  task.outputs.erase(std::unique(task.outputs.begin(), task.outputs.end()), task.outputs.end());

  task.pattern = strongestPattern(task);
  task.anchor = anchorOp(task);
  task.bytesRead = 0;
  for (const TaskInput& input : task.inputs)
    task.bytesRead += input.bytes();
  task.bytesWritten = 0;
  for (const TaskValueRef& ref : task.outputs) {
    const TaskNode& node = task.nodes[ref.index];
    task.bytesWritten +=
        elementCount(node.outputShapes[ref.output]) * dataTypeBytes(node.outputTypes[ref.output]);
  }
  task.key = computeTaskKey(task);
}

std::string computeTaskKey(const Task& task) {
  StableHasher hasher;
  hasher.add("clustune.task.v1");
  hasher.add(static_cast<std::int64_t>(task.inputs.size()));
  for (const TaskInput& input : task.inputs)
    hashInput(hasher, input);
  hasher.add(static_cast<std::int64_t>(task.nodes.size()));
  for (const TaskNode& node : task.nodes) {
    hashNodeBody(hasher, node);
    hasher.add(static_cast<std::int64_t>(node.inputs.size()));
    for (const TaskValueRef& ref : node.inputs)
      hashRef(hasher, ref);
  }
  hasher.add(static_cast<std::int64_t>(task.outputs.size()));
  for (const TaskValueRef& ref : task.outputs)
    hashRef(hasher, ref);
  return toHex(hasher.finish());
}

} // namespace clustune::graph
