// See Partition.h. The structure follows TVM's relay/transforms/fuse_ops.cc (DominatorTree,
// CheckPath, CommitFuse), restricted to the rules of DESIGN §4.2.
#include "graph/Partition.h"

#include "graph/OpCost.h"

#include <algorithm>
#include <cassert>
#include <map>
#include <numeric>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace clustune::graph {
namespace {

// The distinct live nodes that read any output of each node, in node order.
std::vector<std::vector<NodeId>> nodeConsumers(const Graph& graph) {
  const auto valueReaders = graph.consumers();
  std::vector<std::vector<NodeId>> readers(graph.nodes.size());
  for (NodeId id = 0; id < static_cast<NodeId>(graph.nodes.size()); ++id) {
    if (graph.nodes[id].erased)
      continue;
    for (ValueId output : graph.nodes[id].outputs)
      readers[id].insert(readers[id].end(), valueReaders[output].begin(),
                         valueReaders[output].end());
    std::sort(readers[id].begin(), readers[id].end());
    readers[id].erase(std::unique(readers[id].begin(), readers[id].end()), readers[id].end());
  }
  return readers;
}

bool producesGraphOutput(const Graph& graph, const Node& node) {
  return std::any_of(node.outputs.begin(), node.outputs.end(),
                     [&](ValueId output) { return graph.isGraphOutput(output); });
}

bool isElemWiseOrBroadcast(PatternKind kind) {
  return kind == PatternKind::ElemWise || kind == PatternKind::Broadcast;
}

bool isInjectiveOrLess(PatternKind kind) {
  return kind <= PatternKind::Injective;
}

// Union-find over nodes; the root keeps the group's size and strongest pattern kind.
class Groups {
public:
  explicit Groups(const Graph& graph) : parent_(graph.nodes.size()), size_(graph.nodes.size(), 1) {
    std::iota(parent_.begin(), parent_.end(), 0);
    for (const Node& node : graph.nodes)
      pattern_.push_back(node.pattern);
  }

  NodeId root(NodeId node) {
    while (parent_[node] != node)
      node = parent_[node] = parent_[parent_[node]];
    return node;
  }
  bool together(NodeId left, NodeId right) { return root(left) == root(right); }
  bool alone(NodeId node) { return size_[root(node)] == 1; }
  PatternKind pattern(NodeId node) { return pattern_[root(node)]; }

  void merge(NodeId left, NodeId right) {
    NodeId a = root(left);
    NodeId b = root(right);
    if (a == b)
      return;
    if (size_[a] < size_[b])
      std::swap(a, b);
    parent_[b] = a;
    size_[a] += size_[b];
    pattern_[a] = std::max(pattern_[a], pattern_[b]);
  }

private:
  std::vector<NodeId> parent_;
  std::vector<int> size_;
  std::vector<PatternKind> pattern_;
};

// Collects the nodes strictly between `source` and its post-dominator `target` (on any path);
// fails as soon as one of them is not `allowed`. Every path from source reaches target, so the
// search never runs past it.
template <class Allowed>
bool collectPathNodes(const std::vector<std::vector<NodeId>>& consumers, NodeId source,
                      NodeId target, Allowed allowed, std::vector<NodeId>& pathNodes) {
  std::unordered_set<NodeId> visited;
  std::vector<NodeId> pending(consumers[source]);
  while (!pending.empty()) {
    const NodeId node = pending.back();
    pending.pop_back();
    if (node == target || !visited.insert(node).second)
      continue;
    assert(node > source && node < target);
    if (!allowed(node))
      return false;
    pathNodes.push_back(node);
    pending.insert(pending.end(), consumers[node].begin(), consumers[node].end());
  }
  return true;
}

// Tries to fuse the group of `node` with every node up to its immediate post-dominator.
template <class Allowed>
void fuseToPostDominator(const std::vector<std::vector<NodeId>>& consumers, Groups& groups,
                         NodeId node, NodeId dominator, Allowed allowedOnPath) {
  std::vector<NodeId> pathNodes;
  if (!collectPathNodes(consumers, node, dominator, allowedOnPath, pathNodes))
    return;
  groups.merge(node, dominator);
  for (NodeId pathNode : pathNodes)
    groups.merge(node, pathNode);
}

// Each group must be convex (no path leaves it and comes back), else tasks would depend on each
// other in a cycle.
[[maybe_unused]] bool groupsAreAcyclic(const Graph& graph,
                                       const std::vector<std::vector<NodeId>>& consumers,
                                       Groups& groups) {
  std::map<NodeId, std::set<NodeId>> successors;
  std::map<NodeId, int> pendingPredecessors;
  for (NodeId id = 0; id < static_cast<NodeId>(graph.nodes.size()); ++id) {
    if (graph.nodes[id].erased)
      continue;
    pendingPredecessors.try_emplace(groups.root(id), 0);
    for (NodeId consumer : consumers[id])
      if (!groups.together(id, consumer) &&
          successors[groups.root(id)].insert(groups.root(consumer)).second)
        ++pendingPredecessors[groups.root(consumer)];
  }
  std::vector<NodeId> ready;
  for (const auto& [group, count] : pendingPredecessors)
    if (count == 0)
      ready.push_back(group);
  std::size_t visited = 0;
  while (!ready.empty()) {
    const NodeId group = ready.back();
    ready.pop_back();
    ++visited;
    for (NodeId successor : successors[group])
      if (--pendingPredecessors[successor] == 0)
        ready.push_back(successor);
  }
  return visited == pendingPredecessors.size();
}

TaskInput makeTaskInput(const Value& value) {
  TaskInput input;
  input.shape = value.shape;
  input.dtype = value.dtype;
  input.kind =
      value.kind == ValueKind::Constant ? TaskInput::Kind::Weight : TaskInput::Kind::Activation;
  const auto elements = value.elements();
  if (input.kind == TaskInput::Kind::Weight && value.hasData && !value.generated &&
      elements <= kKeyedConstantMaxElements) {
    // Keep the data only when it is complete, so that the task file stays self-consistent.
    if (isFloatingPoint(value.dtype) && std::ssize(value.floatData) == elements) {
      input.hasData = true;
      input.floatData = value.floatData;
    } else if (!isFloatingPoint(value.dtype) && std::ssize(value.intData) == elements) {
      input.hasData = true;
      input.intData = value.intData;
    }
  }
  return input;
}

// Builds the task of one group and records which graph values its inputs and outputs are, in
// the task's canonical order.
Task buildTask(const Graph& graph, const std::vector<NodeId>& members,
               const std::vector<std::vector<NodeId>>& valueReaders, Groups& groups,
               TaskOccurrence& occurrence) {
  Task task;
  std::unordered_map<ValueId, TaskValueRef> producedInside;
  std::unordered_map<ValueId, int> inputIndex;
  std::vector<ValueId> inputValues;
  for (NodeId id : members) {
    const Node& node = graph.nodes[id];
    TaskNode taskNode{node.op, node.attributes, {}, {}, {}, node.pattern};
    for (ValueId input : node.inputs) {
      if (input == kNoValue) {
        taskNode.inputs.push_back(TaskValueRef::omitted());
      } else if (auto inside = producedInside.find(input); inside != producedInside.end()) {
        taskNode.inputs.push_back(inside->second);
      } else {
        auto [found, added] = inputIndex.try_emplace(input, static_cast<int>(task.inputs.size()));
        if (added) {
          task.inputs.push_back(makeTaskInput(graph.values[input]));
          inputValues.push_back(input);
        }
        taskNode.inputs.push_back(TaskValueRef::input(found->second));
      }
    }
    const int position = static_cast<int>(task.nodes.size());
    for (int slot = 0; slot < static_cast<int>(node.outputs.size()); ++slot) {
      const ValueId output = node.outputs[slot];
      taskNode.outputShapes.push_back(graph.values[output].shape);
      taskNode.outputTypes.push_back(graph.values[output].dtype);
      producedInside[output] = TaskValueRef::node(position, slot);
      const auto& readers = valueReaders[output];
      const bool readOutside = std::any_of(readers.begin(), readers.end(), [&](NodeId reader) {
        return !groups.together(reader, id);
      });
      if (readOutside || graph.isGraphOutput(output))
        task.outputs.push_back(TaskValueRef::node(position, slot));
    }
    task.nodes.push_back(std::move(taskNode));
    task.flops += nodeFlops(graph, node);
  }
  // Only dead code (a graph that was not compacted) writes nothing; keep its last result so the
  // task still has something to compute.
  if (task.outputs.empty())
    task.outputs.push_back(TaskValueRef::node(static_cast<int>(task.nodes.size()) - 1, 0));
  task.weights[graph.name.empty() ? std::string("model") : graph.name] = 1;
  CanonicalOrder order;
  canonicalizeTask(task, &order);
  occurrence.key = task.key;
  occurrence.inputs.clear();
  for (int source : order.inputSource)
    occurrence.inputs.push_back(inputValues[source]);
  occurrence.nodes.clear();
  for (int source : order.nodeSource)
    occurrence.nodes.push_back(members[source]);
  occurrence.outputs.clear();
  for (const TaskValueRef& output : task.outputs)
    occurrence.outputs.push_back(
        graph.nodes[members[order.nodeSource[output.index]]].outputs[output.output]);
  return task;
}

// Orders groups so that every group comes after the groups it reads from (Kahn's algorithm,
// ties by first node). Ordering by first node alone is not enough: a residual add can join a
// group whose first node precedes the other branch it waits for.
std::vector<NodeId> topologicalGroupOrder(const Graph& graph,
                                          const std::vector<std::vector<NodeId>>& consumers,
                                          Groups& groups, const std::vector<NodeId>& roots) {
  std::map<NodeId, std::set<NodeId>> successors;
  std::map<NodeId, int> pendingPredecessors;
  std::map<NodeId, NodeId> firstNode;
  for (NodeId root : roots)
    pendingPredecessors[root] = 0;
  for (NodeId id = 0; id < static_cast<NodeId>(graph.nodes.size()); ++id) {
    if (graph.nodes[id].erased)
      continue;
    firstNode.try_emplace(groups.root(id), id);
    for (NodeId consumer : consumers[id])
      if (!groups.together(id, consumer) &&
          successors[groups.root(id)].insert(groups.root(consumer)).second)
        ++pendingPredecessors[groups.root(consumer)];
  }
  std::set<std::pair<NodeId, NodeId>> ready; // (first node, root)
  for (const auto& [root, count] : pendingPredecessors)
    if (count == 0)
      ready.insert({firstNode[root], root});
  std::vector<NodeId> order;
  while (!ready.empty()) {
    const NodeId root = ready.begin()->second;
    ready.erase(ready.begin());
    order.push_back(root);
    for (NodeId successor : successors[root])
      if (--pendingPredecessors[successor] == 0)
        ready.insert({firstNode[successor], successor});
  }
  assert(order.size() == roots.size() && "fused groups must form a DAG");
  return order;
}

} // namespace

std::vector<NodeId> immediatePostDominators(const Graph& graph) {
  const auto nodeCount = static_cast<NodeId>(graph.nodes.size());
  const auto consumers = nodeConsumers(graph);
  std::vector<NodeId> dominator(nodeCount, kVirtualSink);
  std::vector<int> depth(nodeCount, 1); // the sink has depth 0
  auto depthOf = [&](NodeId node) { return node == kVirtualSink ? 0 : depth[node]; };
  auto commonAncestor = [&](NodeId left, NodeId right) {
    while (left != right) {
      if (depthOf(left) >= depthOf(right))
        left = dominator[left];
      else
        right = dominator[right];
    }
    return left;
  };
  // Consumers come later in topological order, so walking backwards finds them done.
  for (NodeId id = nodeCount - 1; id >= 0; --id) {
    const Node& node = graph.nodes[id];
    if (node.erased || consumers[id].empty() || producesGraphOutput(graph, node))
      continue;
    NodeId common = consumers[id].front();
    for (NodeId consumer : consumers[id])
      common = commonAncestor(common, consumer);
    dominator[id] = common;
    depth[id] = depthOf(common) + 1;
  }
  return dominator;
}

std::vector<Task> partition(const Graph& graph, std::vector<TaskOccurrence>* occurrences) {
  const auto nodeCount = static_cast<NodeId>(graph.nodes.size());
  const auto consumers = nodeConsumers(graph);
  const auto dominator = immediatePostDominators(graph);
  Groups groups(graph);
  auto pattern = [&](NodeId node) { return graph.nodes[node].pattern; };

  // Phase 0: anchors absorb element-wise consumers. Visiting absorbed nodes later in the same
  // pass extends the group along the chain (conv -> add -> relu).
  for (NodeId id = 0; id < nodeCount; ++id) {
    const NodeId target = dominator[id];
    if (graph.nodes[id].erased || groups.pattern(id) != PatternKind::OutEWiseFusable ||
        target == kVirtualSink || groups.together(id, target))
      continue;
    if (!isElemWiseOrBroadcast(pattern(target)) || !groups.alone(target))
      continue;
    fuseToPostDominator(consumers, groups, id, target, [&](NodeId node) {
      return isElemWiseOrBroadcast(pattern(node)) && groups.alone(node);
    });
  }

  // Phase 1: cheap groups fuse forward into cheap ops or into a reduction.
  for (NodeId id = 0; id < nodeCount; ++id) {
    const NodeId target = dominator[id];
    if (graph.nodes[id].erased || !isInjectiveOrLess(groups.pattern(id)) ||
        target == kVirtualSink || groups.together(id, target))
      continue;
    const bool targetFits =
        isInjectiveOrLess(pattern(target)) || pattern(target) == PatternKind::CommReduce;
    if (!targetFits || groups.pattern(target) > PatternKind::CommReduce)
      continue;
    // A path node may already belong to the target's group (another branch fused into it
    // earlier); merging with that group keeps it convex.
    fuseToPostDominator(consumers, groups, id, target, [&](NodeId node) {
      return (isInjectiveOrLess(pattern(node)) && groups.alone(node)) ||
             groups.together(node, target);
    });
  }
  assert(groupsAreAcyclic(graph, consumers, groups));

  std::map<NodeId, std::vector<NodeId>> membersByRoot;
  std::vector<NodeId> roots;
  for (NodeId id = 0; id < nodeCount; ++id) {
    if (graph.nodes[id].erased)
      continue;
    auto& members = membersByRoot[groups.root(id)];
    if (members.empty())
      roots.push_back(groups.root(id));
    members.push_back(id);
  }
  const auto valueReaders = graph.consumers();
  std::vector<Task> tasks;
  for (NodeId root : topologicalGroupOrder(graph, consumers, groups, roots)) {
    TaskOccurrence occurrence;
    tasks.push_back(buildTask(graph, membersByRoot[root], valueReaders, groups, occurrence));
    if (occurrences)
      occurrences->push_back(std::move(occurrence));
  }
  return tasks;
}

std::vector<Task> mergeTasks(std::vector<Task> tasks) {
  std::vector<Task> merged;
  std::unordered_map<std::string, std::size_t> positionOfKey;
  for (Task& task : tasks) {
    auto [found, added] = positionOfKey.try_emplace(task.key, merged.size());
    if (added) {
      merged.push_back(std::move(task));
      continue;
    }
    Task& first = merged[found->second];
    assert(first.nodes.size() == task.nodes.size() && first.inputs.size() == task.inputs.size() &&
           "equal keys must mean equal subgraphs");
    for (const auto& [model, count] : task.weights)
      first.weights[model] += count;
  }
  return merged;
}

} // namespace clustune::graph
