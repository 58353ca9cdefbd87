// The random inputs a candidate runs on. The worker process generates them from a seed and
// the argument specs alone, and the parent generates the same values to compute the reference
// outputs (Correctness.h), so megabytes of inputs never cross the pipe and the two sides cannot
// disagree about them: both call generateInputs() here.
#pragma once

#include "graph/Task.h"
#include "te/Tensor.h"
#include "te/TensorData.h"

#include <cstdint>
#include <string>
#include <vector>

namespace clustune::measure {

// One buffer argument of a compiled kernel, in the kernel's argument order (task inputs, then
// task outputs).
struct ArgumentSpec {
  std::string name = {};
  graph::DataType dtype = graph::DataType::Float32;
  graph::Shape shape = {};
  bool isOutput = false;
  // A task input of kind Weight (graph::TaskInput): what TimingOptions::coldWeights evicts.
  bool isWeight = false;
  // The values of a task input whose constant is part of the task (a Pow exponent, a scale):
  // random values there would compute something else than the model does. Empty otherwise.
  std::vector<double> fixedValues = {};

  friend bool operator==(const ArgumentSpec&, const ArgumentSpec&) = default;
};

// The kernel arguments of a task lowered to `workload` (te::lowerTask(task)).
std::vector<ArgumentSpec> argumentSpecs(const graph::Task& task, const te::Workload& workload);

// One tensor per input spec (outputs are skipped), in order. Floating-point values are uniform
// in [-1, 1]; integers are 0, which is a valid index into any dimension (Gather, Slice
// bounds); bools are 0 or 1. Input i draws from Rng(seed).fork(i), so its values depend on the
// seed and its position only.
std::vector<te::TensorData> generateInputs(const std::vector<ArgumentSpec>& arguments,
                                           std::uint64_t seed);

} // namespace clustune::measure
