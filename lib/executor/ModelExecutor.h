// The graph executor: runs a whole model as the sequence of its task occurrences (from the
// partitioner), with one kernel per distinct task. It holds every graph value that is needed
// later, feeds graph inputs and constants, and returns the graph outputs.
#pragma once

#include "executor/TaskKernel.h"
#include "graph/Graph.h"
#include "graph/Partition.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace clustune::executor {

class ModelExecutor {
public:
  // Partitions `model` (already simplified) and creates its kernels through `factory`.
  ModelExecutor(graph::Graph model, KernelFactory& factory);

  const graph::Graph& model() const { return model_; }
  const std::vector<graph::Task>& tasks() const { return tasks_; }
  const std::vector<graph::TaskOccurrence>& occurrences() const { return occurrences_; }

  // Constants whose data the model does not carry (stripped weights) must be provided, either
  // one by one or all at once from a seeded generator (uniform in [-bound, bound] with
  // bound = 1/sqrt(fan-in), so activations stay in a sane range through deep models).
  void setConstant(graph::ValueId value, te::TensorData data);
  void generateMissingConstants(std::uint64_t seed);
  std::vector<graph::ValueId> missingConstants() const;

  // Runs the model; `inputs` follow the graph's input order. Throws clustune::Error naming the
  // input when a shape or dtype does not match, or naming the task when a kernel fails.
  std::vector<te::TensorData> run(const std::vector<te::TensorData>& inputs) const;

  // The constant data in use (model data, provided or generated), by value id.
  const std::map<graph::ValueId, te::TensorData>& constants() const { return constants_; }

private:
  graph::Graph model_;
  std::vector<graph::Task> tasks_; // one per occurrence, in execution order
  std::vector<graph::TaskOccurrence> occurrences_;
  std::map<std::string, std::unique_ptr<TaskKernel>> kernels_; // by workload key
  // For each intermediate value, the step after which nothing reads it, so its memory is freed
  // as soon as possible.
  std::map<graph::ValueId, std::size_t> lastUse_;
  std::map<graph::ValueId, te::TensorData> constants_;
};

// Seeded random data for a tensor: uniform in [-bound, bound] for floats, in [0, bound) for
// integers (e.g. token ids), zero/one for bool.
te::TensorData randomTensor(graph::DataType dtype, const graph::Shape& shape, double bound,
                            std::uint64_t seed);

} // namespace clustune::executor
