// Data-parallel training steps for the MLP cost model (DESIGN §6): a batch of programs is cut
// into one contiguous shard per thread of the pool, each shard goes forward and backward
// through its own copy of the model (the first copy is the model itself), and the copies'
// gradients are added into the model's in shard order. Only the loss, which ranks the whole
// batch as one list, sees every score. Splitting whole passes rather than each product leaves
// no serial layer between the products, and gives each thread products large enough to run at
// full speed. The gradients equal those of the whole batch through one model up to the order of
// float sums, and depend on the thread count, not on timing.
#pragma once

#include "costmodel/MlpCostModel.h"
#include "costmodel/ProgramDataset.h"
#include "nn/Loss.h"

#include <cstddef>
#include <functional>
#include <vector>

namespace clustune::costmodel {

// The statements and offsets of a list of programs, gathered into one contiguous batch.
struct ProgramBatch {
  nn::Matrix statements;
  std::vector<int> offsets;
  nn::Vector labels;
};

ProgramBatch gatherPrograms(const ProgramDataset& dataset, const std::vector<float>& labels,
                            const std::size_t* programs, std::size_t count);

// The loss of a batch's scores against its labels, with its gradient by score.
using BatchLoss = std::function<nn::LossValue(const nn::Vector& scores, const nn::Vector& labels)>;

class DataParallelReplicas {
public:
  // `model` must outlive the replicas. The copies are taken now (so fit the feature scale
  // first) and take the model's weights again at every step that uses them.
  explicit DataParallelReplicas(MlpCostModel& model);

  // Forward, loss and backward for the programs `programs[0, count)` of `dataset`; leaves the
  // batch's gradients in the model's parameters and returns the loss. A non-finite loss is
  // returned without a backward pass.
  nn::LossValue step(const ProgramDataset& dataset, const std::vector<float>& labels,
                     const std::size_t* programs, std::size_t count, const BatchLoss& loss);

  // How many shards a batch of `count` programs is cut into.
  std::size_t shardsFor(std::size_t count) const;

private:
  MlpCostModel& replica(std::size_t shard) { return shard == 0 ? model_ : copies_[shard - 1]; }

  MlpCostModel& model_;
  std::vector<MlpCostModel> copies_;
};

} // namespace clustune::costmodel
