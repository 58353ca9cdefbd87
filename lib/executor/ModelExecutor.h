// The graph executor: runs a whole model as the sequence of its task occurrences (from the
// partitioner), with one kernel per distinct task. It holds every graph value that is needed
// later, feeds graph inputs and constants, and returns the graph outputs.
#pragma once

#include "executor/MemoryPlan.h"
#include "executor/TaskKernel.h"
#include "graph/Graph.h"
#include "graph/Partition.h"
#include "runtime/AlignedBuffer.h"

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

  // Constants whose data the model does not carry (stripped weights) must be given data before
  // simplification (graph/Weights.h) or provided here.
  void setConstant(graph::ValueId value, te::TensorData data);
  std::vector<graph::ValueId> missingConstants() const;

  // Runs the model; `inputs` follow the graph's input order. Throws clustune::Error naming the
  // input when a shape or dtype does not match, or naming the task when a kernel fails. With
  // `occurrenceSeconds`, records the wall time of each task occurrence (in occurrences() order).
  std::vector<te::TensorData> run(const std::vector<te::TensorData>& inputs,
                                  std::vector<double>* occurrenceSeconds = nullptr) const;

  // The constant data in use (model data, provided or generated), by value id.
  const std::map<graph::ValueId, te::TensorData>& constants() const { return constants_; }
  // Bytes of the intermediate arena, and what one buffer per tensor would have needed.
  std::int64_t arenaBytes() const { return static_cast<std::int64_t>(arena_.size()); }
  std::int64_t unsharedBytes() const { return unsharedBytes_; }

private:
  te::TensorView viewOf(graph::ValueId id) const;

  graph::Graph model_;
  std::vector<graph::Task> tasks_; // one per occurrence, in execution order
  std::vector<graph::TaskOccurrence> occurrences_;
  std::map<std::string, std::unique_ptr<TaskKernel>> kernels_; // by workload key
  std::map<graph::ValueId, te::TensorData> constants_;
  // Every value a task produces lives at a planned offset in one arena (MemoryPlan.h).
  std::map<graph::ValueId, std::int64_t> arenaOffset_;
  mutable runtime::AlignedBuffer arena_;
  // Per occurrence, where its operands live: filled at construction except for graph inputs
  // and constants, whose addresses are bound at run time.
  struct Binding {
    std::vector<te::TensorView> inputs;
    std::vector<te::TensorView> outputs;
  };
  mutable std::vector<Binding> bindings_;
  std::int64_t unsharedBytes_ = 0;
};

// Seeded random data for a tensor, e.g. a model input: uniform in [-bound, bound] for floats,
// integers in [0, bound) (at least {0}), zero/one for bool.
te::TensorData randomTensor(graph::DataType dtype, const graph::Shape& shape, double bound,
                            std::uint64_t seed);

// Seeded inputs for every graph input of `model`: floats uniform in [-1, 1], integer inputs
// (token ids, masks) in {0, 1}, valid for any vocabulary and for attention masks.
std::vector<te::TensorData> randomModelInputs(const graph::Graph& model, std::uint64_t seed);

} // namespace clustune::executor
