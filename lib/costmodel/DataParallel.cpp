// See DataParallel.h.
#include "costmodel/DataParallel.h"

#include "runtime/ThreadPool.h"

#include <algorithm>
#include <cmath>

namespace clustune::costmodel {
namespace {

// Below this, a shard's products are too small for a thread to be worth waking.
constexpr std::size_t kMinimumProgramsPerShard = 64;

// Shard `shard` of `shards` holds the programs [begin, end) of a batch of `count`.
std::size_t shardBegin(std::size_t count, std::size_t shards, std::size_t shard) {
  return count * shard / shards;
}

// The copies take the model's current weights at the start of every step that uses them, so
// that a batch too small to shard copies nothing.
void copyWeights(MlpCostModel& from, MlpCostModel& to) {
  const std::vector<nn::Parameter*> source = from.parameters();
  const std::vector<nn::Parameter*> target = to.parameters();
  for (std::size_t parameter = 0; parameter < source.size(); ++parameter)
    target[parameter]->value = source[parameter]->value;
}

} // namespace

ProgramBatch gatherPrograms(const ProgramDataset& dataset, const std::vector<float>& labels,
                            const std::size_t* programs, std::size_t count) {
  ProgramBatch batch;
  batch.offsets.reserve(count + 1);
  batch.offsets.push_back(0);
  for (std::size_t index = 0; index < count; ++index) {
    const std::size_t program = programs[index];
    batch.offsets.push_back(batch.offsets.back() + dataset.programOffsets[program + 1] -
                            dataset.programOffsets[program]);
  }
  batch.statements.resize(batch.offsets.back(), dataset.statements.cols());
  batch.labels.resize(static_cast<Eigen::Index>(count));
  for (std::size_t index = 0; index < count; ++index) {
    const std::size_t program = programs[index];
    const int begin = dataset.programOffsets[program];
    const int rows = dataset.programOffsets[program + 1] - begin;
    batch.statements.middleRows(batch.offsets[index], rows) =
        dataset.statements.middleRows(begin, rows);
    batch.labels(static_cast<Eigen::Index>(index)) = labels[program];
  }
  return batch;
}

DataParallelReplicas::DataParallelReplicas(MlpCostModel& model) : model_(model) {
  const int threads = runtime::ThreadPool::global().threadCount();
  copies_.assign(static_cast<std::size_t>(std::max(threads, 1) - 1), model);
}

std::size_t DataParallelReplicas::shardsFor(std::size_t count) const {
  return std::clamp<std::size_t>(count / kMinimumProgramsPerShard, 1, copies_.size() + 1);
}

nn::LossValue DataParallelReplicas::step(const ProgramDataset& dataset,
                                         const std::vector<float>& labels,
                                         const std::size_t* programs, std::size_t count,
                                         const BatchLoss& loss) {
  const std::size_t shards = shardsFor(count);
  std::vector<ProgramBatch> batches(shards);
  std::vector<nn::Vector> scores(shards);
  runtime::ThreadPool& pool = runtime::ThreadPool::global();
  const auto forEachShard = [&](const std::function<void(std::size_t)>& body) {
    pool.parallelFor(static_cast<std::int64_t>(shards), [&](std::int64_t first, std::int64_t last) {
      for (auto shard = static_cast<std::size_t>(first); shard < static_cast<std::size_t>(last);
           ++shard)
        body(shard);
    });
  };
  forEachShard([&](std::size_t shard) {
    const std::size_t begin = shardBegin(count, shards, shard);
    if (shard > 0)
      copyWeights(model_, copies_[shard - 1]);
    batches[shard] = gatherPrograms(dataset, labels, programs + begin,
                                    shardBegin(count, shards, shard + 1) - begin);
    scores[shard] = replica(shard).forward(batches[shard].statements, batches[shard].offsets);
  });
  nn::Vector allScores(static_cast<Eigen::Index>(count));
  nn::Vector allLabels(static_cast<Eigen::Index>(count));
  for (std::size_t shard = 0; shard < shards; ++shard) {
    const auto begin = static_cast<Eigen::Index>(shardBegin(count, shards, shard));
    allScores.segment(begin, scores[shard].size()) = scores[shard];
    allLabels.segment(begin, scores[shard].size()) = batches[shard].labels;
  }
  nn::LossValue result = loss(allScores, allLabels);
  if (!std::isfinite(result.value))
    return result;
  forEachShard([&](std::size_t shard) {
    const auto begin = static_cast<Eigen::Index>(shardBegin(count, shards, shard));
    replica(shard).backward(result.gradient.segment(begin, scores[shard].size()));
  });
  const std::vector<nn::Parameter*> target = model_.parameters();
  for (std::size_t shard = 1; shard < shards; ++shard) {
    const std::vector<nn::Parameter*> source = replica(shard).parameters();
    for (std::size_t parameter = 0; parameter < target.size(); ++parameter) {
      target[parameter]->gradient += source[parameter]->gradient;
      source[parameter]->gradient.setZero();
    }
  }
  return result;
}

} // namespace clustune::costmodel
