// See Weights.h.
#include "graph/Weights.h"

#include "support/Hash.h"
#include "support/Random.h"

#include <cmath>

namespace clustune::graph {
namespace {

enum class WeightRole { Generic, NormalizationScale, NormalizationShift };

// How the constant is used decides its range: a variance must be positive, a scale near one.
WeightRole roleOf(const Graph& graph, ValueId value,
                  const std::vector<std::vector<NodeId>>& readers) {
  for (NodeId reader : readers[value]) {
    const Node& node = graph.nodes[reader];
    for (std::size_t slot = 0; slot < node.inputs.size(); ++slot) {
      if (node.inputs[slot] != value)
        continue;
      if (node.op == "BatchNormalization")
        return slot == 1 || slot == 4 ? WeightRole::NormalizationScale
                                      : WeightRole::NormalizationShift;
      if (node.op == "LayerNormalization")
        return slot == 1 ? WeightRole::NormalizationScale : WeightRole::NormalizationShift;
    }
  }
  return WeightRole::Generic;
}

} // namespace

int generateMissingWeights(Graph& graph, std::uint64_t seed) {
  const auto readers = graph.consumers();
  int filled = 0;
  for (ValueId id = 0; id < static_cast<ValueId>(graph.values.size()); ++id) {
    Value& value = graph.values[id];
    if (value.kind != ValueKind::Constant || value.hasData)
      continue;
    const std::int64_t count = value.elements();
    if (!isFloatingPoint(value.dtype)) {
      value.intData.assign(static_cast<std::size_t>(count), 0);
      value.hasData = true;
      value.generated = true;
      ++filled;
      continue;
    }
    double low = -0.1, high = 0.1;
    switch (roleOf(graph, id, readers)) {
    case WeightRole::NormalizationScale:
      low = 0.5;
      high = 1.5;
      break;
    case WeightRole::NormalizationShift:
      break;
    case WeightRole::Generic: {
      std::int64_t fanIn = 1;
      for (std::size_t axis = 1; axis < value.shape.size(); ++axis)
        fanIn *= value.shape[axis];
      high = 1.0 / std::sqrt(static_cast<double>(std::max<std::int64_t>(fanIn, 1)));
      low = -high;
      break;
    }
    }
    Rng rng = Rng(seed).fork(stableHash(value.name));
    value.floatData.resize(static_cast<std::size_t>(count));
    for (double& element : value.floatData)
      element = static_cast<float>(rng.uniform(low, high)); // exactly representable in float32
    value.hasData = true;
    value.generated = true;
    ++filled;
  }
  return filled;
}

} // namespace clustune::graph
