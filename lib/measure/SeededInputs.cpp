// See SeededInputs.h.
#include "measure/SeededInputs.h"

#include "support/Error.h"
#include "support/Random.h"

#include <cassert>

namespace clustune::measure {

std::vector<ArgumentSpec> argumentSpecs(const graph::Task& task, const te::Workload& workload) {
  assert(workload.inputs.size() == task.inputs.size());
  std::vector<ArgumentSpec> arguments;
  for (std::size_t i = 0; i < workload.inputs.size(); ++i) {
    const graph::TaskInput& input = task.inputs[i];
    ArgumentSpec spec{.name = workload.inputs[i]->name,
                      .dtype = workload.inputs[i]->dtype,
                      .shape = workload.inputs[i]->shape,
                      .isWeight = input.kind == graph::TaskInput::Kind::Weight};
    if (input.hasData) {
      if (graph::isFloatingPoint(input.dtype))
        spec.fixedValues = input.floatData;
      else
        spec.fixedValues.assign(input.intData.begin(), input.intData.end());
    }
    arguments.push_back(std::move(spec));
  }
  for (const te::Tensor& output : workload.outputs)
    arguments.push_back(
        {.name = output->name, .dtype = output->dtype, .shape = output->shape, .isOutput = true});
  return arguments;
}

std::vector<te::TensorData> generateInputs(const std::vector<ArgumentSpec>& arguments,
                                           std::uint64_t seed) {
  const Rng root(seed);
  std::vector<te::TensorData> inputs;
  for (std::size_t index = 0; index < arguments.size(); ++index) {
    const ArgumentSpec& spec = arguments[index];
    if (spec.isOutput)
      continue;
    te::TensorData data(spec.dtype, spec.shape);
    if (!spec.fixedValues.empty()) {
      if (static_cast<std::int64_t>(spec.fixedValues.size()) != data.elements())
        throw Error("argument " + spec.name + " has " + std::to_string(spec.fixedValues.size()) +
                    " fixed values for " + std::to_string(data.elements()) + " elements");
      for (std::int64_t e = 0; e < data.elements(); ++e)
        data.set(e, spec.fixedValues[static_cast<std::size_t>(e)]);
    } else if (graph::isFloatingPoint(spec.dtype)) {
      Rng rng = root.fork(index);
      for (std::int64_t e = 0; e < data.elements(); ++e)
        data.set(e, rng.uniform(-1.0, 1.0));
    } else if (spec.dtype == graph::DataType::Bool) {
      Rng rng = root.fork(index);
      for (std::int64_t e = 0; e < data.elements(); ++e)
        data.set(e, static_cast<double>(rng.uniformInt(2)));
    }
    // Integer tensors stay zero-filled (TensorData starts zeroed).
    inputs.push_back(std::move(data));
  }
  return inputs;
}

} // namespace clustune::measure
