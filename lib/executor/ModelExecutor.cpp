// See ModelExecutor.h.
#include "executor/ModelExecutor.h"

#include "executor/ModelPlan.h"
#include "support/Error.h"
#include "support/Random.h"
#include "support/Stopwatch.h"

#include <cmath>
#include <cstring>
#include <spdlog/spdlog.h>

namespace clustune::executor {

te::TensorData randomTensor(graph::DataType dtype, const graph::Shape& shape, double bound,
                            std::uint64_t seed) {
  te::TensorData data(dtype, shape);
  Rng rng(seed);
  for (std::int64_t i = 0; i < data.elements(); ++i) {
    if (graph::isFloatingPoint(dtype))
      data.set(i, rng.uniform(-bound, bound));
    else if (dtype == graph::DataType::Bool)
      data.set(i, static_cast<double>(rng.uniformInt(2)));
    else
      data.set(
          i, static_cast<double>(rng.uniformInt(static_cast<std::uint64_t>(std::max(bound, 1.0)))));
  }
  return data;
}

std::vector<te::TensorData> randomModelInputs(const graph::Graph& model, std::uint64_t seed) {
  std::vector<te::TensorData> inputs;
  for (std::size_t i = 0; i < model.inputs.size(); ++i) {
    const graph::Value& value = model.values[model.inputs[i]];
    const double bound = graph::isFloatingPoint(value.dtype) ? 1.0 : 2.0;
    inputs.push_back(randomTensor(value.dtype, value.shape, bound, Rng(seed).fork(i).next()));
  }
  return inputs;
}

ModelExecutor::ModelExecutor(graph::Graph model, KernelFactory& factory)
    : model_(std::move(model)) {
  tasks_ = graph::partition(model_, &occurrences_);
  for (std::size_t index = 0; index < tasks_.size(); ++index) {
    const graph::Task& task = tasks_[index];
    if (kernels_.count(task.key))
      continue;
    try {
      kernels_[task.key] = factory.create(task);
    } catch (const Error& error) {
      // Name the model node whose operator failed (a lowering error starts with its op).
      std::string node;
      for (std::size_t k = 0; k < task.nodes.size() && node.empty(); ++k)
        if (error.message().starts_with(task.nodes[k].op + ":") ||
            error.message().find("'" + task.nodes[k].op + "'") != std::string::npos)
          node = model_.nodeLabel(occurrences_[index].nodes[k]);
      throw error.withContext({.node = node, .task = task.key});
    }
  }
  constants_ = constantData(model_);
  const ArenaPlacement placement = placeProducedValues(model_, occurrences_);
  arena_ = runtime::AlignedBuffer(static_cast<std::size_t>(placement.arenaBytes));
  unsharedBytes_ = placement.unsharedBytes;
  arenaOffset_ = placement.offsets;

  for (const graph::TaskOccurrence& occurrence : occurrences_) {
    Binding binding;
    for (graph::ValueId id : occurrence.inputs)
      binding.inputs.push_back(viewOf(id));
    for (graph::ValueId id : occurrence.outputs)
      binding.outputs.push_back(viewOf(id));
    bindings_.push_back(std::move(binding));
  }
  spdlog::debug("{}: {} task occurrences, {} kernels ({}), arena {:.1f} MiB (unshared {:.1f} MiB)",
                model_.name, occurrences_.size(), kernels_.size(), factory.name(),
                static_cast<double>(placement.arenaBytes) / (1 << 20),
                static_cast<double>(placement.unsharedBytes) / (1 << 20));
}

te::TensorView ModelExecutor::viewOf(graph::ValueId id) const {
  const graph::Value& value = model_.values[id];
  te::TensorView view{value.dtype, value.shape, nullptr};
  if (auto offset = arenaOffset_.find(id); offset != arenaOffset_.end())
    view.data = arena_.data() + offset->second;
  else if (auto constant = constants_.find(id); constant != constants_.end())
    view.data = const_cast<void*>(constant->second.data());
  return view; // graph inputs, and constants not provided yet, are bound in run()
}

void ModelExecutor::setConstant(graph::ValueId value, te::TensorData data) {
  const graph::Value& expected = model_.values.at(value);
  if (data.shape() != expected.shape || data.dtype() != expected.dtype)
    throw Error("constant '" + expected.name + "' expects " + graph::dataTypeName(expected.dtype) +
                "[" + graph::shapeToString(expected.shape) + "], given " +
                graph::dataTypeName(data.dtype()) + "[" + graph::shapeToString(data.shape()) + "]");
  constants_[value] = std::move(data);
}

std::vector<graph::ValueId> ModelExecutor::missingConstants() const {
  std::vector<graph::ValueId> missing;
  for (graph::ValueId id = 0; id < static_cast<graph::ValueId>(model_.values.size()); ++id)
    if (model_.values[id].kind == graph::ValueKind::Constant && !constants_.count(id))
      missing.push_back(id);
  return missing;
}

std::vector<te::TensorData> ModelExecutor::run(const std::vector<te::TensorData>& inputs,
                                               std::vector<double>* occurrenceSeconds) const {
  checkModelInputs(model_, inputs);
  std::map<graph::ValueId, const te::TensorData*> external;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    external[model_.inputs[i]] = &inputs[i];
  for (const auto& [id, data] : constants_)
    external[id] = &data;
  if (occurrenceSeconds)
    occurrenceSeconds->assign(occurrences_.size(), 0.0);
  for (std::size_t step = 0; step < occurrences_.size(); ++step) {
    const graph::TaskOccurrence& occurrence = occurrences_[step];
    Binding& binding = bindings_[step];
    for (std::size_t k = 0; k < occurrence.inputs.size(); ++k) {
      if (arenaOffset_.count(occurrence.inputs[k]))
        continue;
      auto found = external.find(occurrence.inputs[k]);
      if (found == external.end())
        throw Error("constant '" + model_.values[occurrence.inputs[k]].name +
                    "' has no data: provide it or generate weights");
      binding.inputs[k].data = const_cast<void*>(found->second->data());
    }
    const auto start = SteadyClock::now();
    try {
      kernels_.at(occurrence.key)->run(binding.inputs, binding.outputs);
    } catch (const Error& error) {
      throw error.withContext({.task = occurrence.key});
    }
    if (occurrenceSeconds)
      (*occurrenceSeconds)[step] = secondsSince(start);
  }
  std::vector<te::TensorData> outputs;
  for (graph::ValueId id : model_.outputs) {
    const graph::Value& value = model_.values[id];
    te::TensorData output(value.dtype, value.shape);
    if (output.byteSize() == 0) { // an empty tensor has no storage to copy from
      outputs.push_back(std::move(output));
      continue;
    }
    const te::TensorView view = viewOf(id);
    const void* source = view.data;
    if (!source) {
      auto found = external.find(id); // a graph output that is an input or constant
      source = found != external.end() ? found->second->data() : nullptr;
    }
    if (!source)
      throw Error("graph output '" + value.name + "' has no data");
    std::memcpy(output.data(), source, output.byteSize());
    outputs.push_back(std::move(output));
  }
  return outputs;
}

} // namespace clustune::executor
