// See CandidateFeatures.h.
#include "tune/CandidateFeatures.h"

#include "costmodel/ProgramDataset.h"
#include "runtime/ThreadPool.h"

namespace clustune::tune {

FeatureBatch featurize(const graph::Task& task,
                       std::span<const search::Candidate* const> candidates) {
  std::vector<nn::Matrix> rows(candidates.size());
  runtime::ThreadPool::global().parallelFor(
      static_cast<std::int64_t>(candidates.size()), [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t index = begin; index < end; ++index)
          rows[static_cast<std::size_t>(index)] = costmodel::programFeatures(
              task, candidates[static_cast<std::size_t>(index)]->function);
      });
  FeatureBatch batch;
  for (const nn::Matrix& program : rows)
    batch.offsets.push_back(batch.offsets.back() + static_cast<int>(program.rows()));
  batch.statements.resize(batch.offsets.back(),
                          static_cast<Eigen::Index>(costmodel::kStatementFeatureCount));
  for (std::size_t index = 0; index < rows.size(); ++index)
    batch.statements.middleRows(batch.offsets[index], rows[index].rows()) = rows[index];
  return batch;
}

} // namespace clustune::tune
