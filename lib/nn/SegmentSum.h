// Pools a variable number of rows into one row per group: the cost models embed each statement
// of a program as a row and sum a program's statements into one vector (Tenset's MLP model
// sums its per-statement features the same way). Groups are given as offsets into the rows, so
// a batch of programs is one matrix and one offset list, with no padding.
#pragma once

#include "nn/Parameter.h"

#include <span>
#include <vector>

namespace clustune::nn {

class SegmentSum {
public:
  // `offsets` has S + 1 entries: segment s is rows [offsets[s], offsets[s + 1]). offsets[0] is
  // 0, they never decrease and the last is rows.rows(). Returns S rows; an empty segment gives a
  // zero row. Keeps the offsets for backward().
  Matrix forward(const Matrix& rows, std::span<const int> offsets);
  // Every input row receives the gradient row of its segment.
  Matrix backward(const Matrix& segmentGradient);
  static Matrix infer(const Matrix& rows, std::span<const int> offsets);

private:
  std::vector<int> lastOffsets_;
};

} // namespace clustune::nn
