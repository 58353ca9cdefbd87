// See ModelExecutor.h.
#include "executor/ModelExecutor.h"

#include "support/Error.h"
#include "support/Hash.h"
#include "support/Random.h"

#include <cmath>
#include <spdlog/spdlog.h>

namespace clustune::executor {
namespace {

te::TensorData dataOfConstant(const graph::Value& value) {
  te::TensorData data(value.dtype, value.shape);
  const bool floating = graph::isFloatingPoint(value.dtype);
  for (std::int64_t i = 0; i < value.elements(); ++i)
    data.set(i, floating ? value.floatData[i] : static_cast<double>(value.intData[i]));
  return data;
}

// Fan-in of a weight: the product of all but its first dimension (Conv: Cin/groups x kernel,
// Gemm/MatMul: K); a vector or scalar counts as fan-in 1.
double initialisationBound(const graph::Shape& shape) {
  std::int64_t fanIn = 1;
  for (std::size_t i = 1; i < shape.size(); ++i)
    fanIn *= shape[i];
  return 1.0 / std::sqrt(static_cast<double>(std::max<std::int64_t>(fanIn, 1)));
}

} // namespace

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

ModelExecutor::ModelExecutor(graph::Graph model, KernelFactory& factory)
    : model_(std::move(model)) {
  tasks_ = graph::partition(model_, &occurrences_);
  for (const graph::Task& task : tasks_) {
    if (kernels_.count(task.key))
      continue;
    try {
      kernels_[task.key] = factory.create(task);
    } catch (const Error& error) {
      throw error.withContext({.task = task.key});
    }
  }
  for (std::size_t step = 0; step < occurrences_.size(); ++step)
    for (graph::ValueId id : occurrences_[step].inputs)
      if (model_.values[id].kind == graph::ValueKind::Intermediate && !model_.isGraphOutput(id))
        lastUse_[id] = step;
  for (graph::ValueId id = 0; id < static_cast<graph::ValueId>(model_.values.size()); ++id) {
    const graph::Value& value = model_.values[id];
    if (value.kind == graph::ValueKind::Constant && value.hasData)
      constants_[id] = dataOfConstant(value);
  }
  spdlog::debug("{}: {} task occurrences, {} kernels ({})", model_.name, occurrences_.size(),
                kernels_.size(), factory.name());
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

void ModelExecutor::generateMissingConstants(std::uint64_t seed) {
  for (graph::ValueId id : missingConstants()) {
    const graph::Value& value = model_.values[id];
    // Seeded by name as well as id, so a constant keeps its data when unrelated parts change.
    const std::uint64_t stream = StableHasher().add(value.name).add(std::int64_t{id}).finish();
    constants_[id] = randomTensor(value.dtype, value.shape, initialisationBound(value.shape),
                                  Rng(seed).fork(stream).next());
  }
}

std::vector<te::TensorData> ModelExecutor::run(const std::vector<te::TensorData>& inputs) const {
  if (inputs.size() != model_.inputs.size())
    throw Error("model '" + model_.name + "' has " + std::to_string(model_.inputs.size()) +
                " inputs, given " + std::to_string(inputs.size()));
  std::map<graph::ValueId, te::TensorData> values;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const graph::Value& expected = model_.values[model_.inputs[i]];
    if (inputs[i].shape() != expected.shape || inputs[i].dtype() != expected.dtype)
      throw Error("input '" + expected.name + "' expects " + graph::dataTypeName(expected.dtype) +
                  "[" + graph::shapeToString(expected.shape) + "], given " +
                  graph::dataTypeName(inputs[i].dtype()) + "[" +
                  graph::shapeToString(inputs[i].shape()) + "]");
    values[model_.inputs[i]] = inputs[i];
  }
  auto lookup = [&](graph::ValueId id) -> const te::TensorData& {
    if (auto found = values.find(id); found != values.end())
      return found->second;
    if (auto constant = constants_.find(id); constant != constants_.end())
      return constant->second;
    throw Error("constant '" + model_.values[id].name +
                "' has no data: provide it or generate weights");
  };
  for (std::size_t step = 0; step < occurrences_.size(); ++step) {
    const graph::TaskOccurrence& occurrence = occurrences_[step];
    std::vector<const te::TensorData*> taskInputs;
    for (graph::ValueId id : occurrence.inputs)
      taskInputs.push_back(&lookup(id));
    std::vector<te::TensorData*> taskOutputs;
    for (graph::ValueId id : occurrence.outputs) {
      const graph::Value& value = model_.values[id];
      values[id] = te::TensorData(value.dtype, value.shape);
      taskOutputs.push_back(&values[id]);
    }
    try {
      kernels_.at(occurrence.key)->run(taskInputs, taskOutputs);
    } catch (const Error& error) {
      throw error.withContext({.task = occurrence.key});
    }
    for (graph::ValueId id : occurrence.inputs)
      if (auto last = lastUse_.find(id); last != lastUse_.end() && last->second == step)
        values.erase(id);
  }
  std::vector<te::TensorData> outputs;
  for (graph::ValueId id : model_.outputs)
    outputs.push_back(lookup(id));
  return outputs;
}

} // namespace clustune::executor
