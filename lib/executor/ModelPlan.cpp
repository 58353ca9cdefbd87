// See ModelPlan.h.
#include "executor/ModelPlan.h"

#include "executor/MemoryPlan.h"
#include "support/Error.h"

namespace clustune::executor {

ArenaPlacement placeProducedValues(const graph::Graph& model,
                                   const std::vector<graph::TaskOccurrence>& occurrences) {
  std::vector<graph::ValueId> produced;
  std::map<graph::ValueId, TensorLifetime> lifetimes;
  for (std::size_t step = 0; step < occurrences.size(); ++step) {
    for (graph::ValueId id : occurrences[step].inputs)
      if (auto found = lifetimes.find(id); found != lifetimes.end())
        found->second.lastStep = step;
    for (graph::ValueId id : occurrences[step].outputs) {
      const std::size_t last = model.isGraphOutput(id) ? occurrences.size() : step;
      lifetimes[id] = {model.values[id].bytes(), step, last};
      produced.push_back(id);
    }
  }
  std::vector<TensorLifetime> ordered;
  for (graph::ValueId id : produced)
    ordered.push_back(lifetimes[id]);
  const MemoryPlan plan = planMemory(ordered);
  ArenaPlacement placement{.arenaBytes = plan.arenaBytes, .unsharedBytes = plan.unsharedBytes};
  for (std::size_t i = 0; i < produced.size(); ++i)
    placement.offsets[produced[i]] = plan.offsets[i];
  return placement;
}

void checkModelInputs(const graph::Graph& model, const std::vector<te::TensorData>& inputs) {
  if (inputs.size() != model.inputs.size())
    throw Error("model '" + model.name + "' has " + std::to_string(model.inputs.size()) +
                " inputs, given " + std::to_string(inputs.size()));
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const graph::Value& expected = model.values[model.inputs[i]];
    if (inputs[i].shape() != expected.shape || inputs[i].dtype() != expected.dtype)
      throw Error("input '" + expected.name + "' expects " + graph::dataTypeName(expected.dtype) +
                  "[" + graph::shapeToString(expected.shape) + "], given " +
                  graph::dataTypeName(inputs[i].dtype()) + "[" +
                  graph::shapeToString(inputs[i].shape()) + "]");
  }
}

std::map<graph::ValueId, te::TensorData> constantData(const graph::Graph& model) {
  std::map<graph::ValueId, te::TensorData> constants;
  for (graph::ValueId id = 0; id < static_cast<graph::ValueId>(model.values.size()); ++id) {
    const graph::Value& value = model.values[id];
    if (value.kind != graph::ValueKind::Constant || !value.hasData)
      continue;
    te::TensorData data(value.dtype, value.shape);
    const bool floating = graph::isFloatingPoint(value.dtype);
    for (std::int64_t i = 0; i < value.elements(); ++i)
      data.set(i, floating ? value.floatData[i] : static_cast<double>(value.intData[i]));
    constants[id] = std::move(data);
  }
  return constants;
}

} // namespace clustune::executor
