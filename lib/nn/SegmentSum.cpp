// The offsets are validated with asserts: they come from the kit's own batching code, never
// from a user, so a bad list is a programming error, not a clustune::Error.
#include "nn/SegmentSum.h"

#include <cassert>

namespace clustune::nn {
namespace {

[[maybe_unused]] bool validOffsets(std::span<const int> offsets, Eigen::Index rows) {
  if (offsets.empty() || offsets.front() != 0 || offsets.back() != rows)
    return false;
  for (std::size_t index = 1; index < offsets.size(); ++index)
    if (offsets[index] < offsets[index - 1])
      return false;
  return true;
}

} // namespace

Matrix SegmentSum::forward(const Matrix& rows, std::span<const int> offsets) {
  lastOffsets_.assign(offsets.begin(), offsets.end());
  return infer(rows, offsets);
}

Matrix SegmentSum::backward(const Matrix& segmentGradient) {
  assert(!lastOffsets_.empty());
  const Eigen::Index segments = static_cast<Eigen::Index>(lastOffsets_.size()) - 1;
  assert(segmentGradient.rows() == segments);
  Matrix rowGradient(lastOffsets_.back(), segmentGradient.cols());
  for (Eigen::Index segment = 0; segment < segments; ++segment)
    for (int row = lastOffsets_[segment]; row < lastOffsets_[segment + 1]; ++row)
      rowGradient.row(row) = segmentGradient.row(segment);
  return rowGradient;
}

Matrix SegmentSum::infer(const Matrix& rows, std::span<const int> offsets) {
  assert(validOffsets(offsets, rows.rows()));
  const Eigen::Index segments = static_cast<Eigen::Index>(offsets.size()) - 1;
  Matrix sums = Matrix::Zero(segments, rows.cols());
  for (Eigen::Index segment = 0; segment < segments; ++segment) {
    const int begin = offsets[segment];
    const int end = offsets[segment + 1];
    if (end > begin)
      sums.row(segment) = rows.middleRows(begin, end - begin).colwise().sum();
  }
  return sums;
}

} // namespace clustune::nn
