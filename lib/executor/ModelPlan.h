// What every executor of a model works out before it runs, whatever memory its kernels use
// (host arena: ModelExecutor.h; GPU memory: GpuModelExecutor.h): the values each task produces,
// with an offset in one arena whose blocks are reused once a value is dead (MemoryPlan.h), and
// the data of the model's constants.
#pragma once

#include "graph/Graph.h"
#include "graph/Partition.h"
#include "te/TensorData.h"

#include <cstdint>
#include <map>

namespace clustune::executor {

struct ArenaPlacement {
  std::map<graph::ValueId, std::int64_t> offsets = {}; // every value a task produces
  std::int64_t arenaBytes = 0;
  std::int64_t unsharedBytes = 0; // what one buffer per value would need
};

// Each produced value lives from its step to its last reader; graph outputs to the end, so
// they can be copied out after the run.
ArenaPlacement placeProducedValues(const graph::Graph& model,
                                   const std::vector<graph::TaskOccurrence>& occurrences);

// Throws clustune::Error naming the input when `inputs` (in the graph's input order) do not
// match the model's inputs in number, shape or dtype.
void checkModelInputs(const graph::Graph& model, const std::vector<te::TensorData>& inputs);

// The data of every constant that carries it, by value id.
std::map<graph::ValueId, te::TensorData> constantData(const graph::Graph& model);

} // namespace clustune::executor
