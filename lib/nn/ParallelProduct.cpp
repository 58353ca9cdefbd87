// Row blocks are at least kMinimumRowsPerThread long: below that the launch costs more than the
// product, and a single block runs on the calling thread.
#include "nn/ParallelProduct.h"

#include "runtime/ThreadPool.h"

#include <algorithm>
#include <cassert>
#include <vector>

namespace clustune::nn {
namespace {

constexpr Eigen::Index kMinimumRowsPerThread = 64;

int blockCountFor(Eigen::Index rows) {
  // Inside a parallel region (a data-parallel training shard) the product has its thread.
  if (runtime::ThreadPool::insideParallelRegion())
    return 1;
  const int threads = runtime::ThreadPool::global().threadCount();
  const Eigen::Index blocks = std::max<Eigen::Index>(1, rows / kMinimumRowsPerThread);
  return static_cast<int>(std::min<Eigen::Index>(threads, blocks));
}

Eigen::Index blockBegin(Eigen::Index rows, int blocks, int block) {
  return rows * block / blocks;
}

} // namespace

Matrix multiply(const Matrix& left, const Matrix& right) {
  assert(left.cols() == right.rows());
  Matrix result(left.rows(), right.cols());
  const int blocks = blockCountFor(left.rows());
  if (blocks <= 1) {
    result.noalias() = left * right;
    return result;
  }
  runtime::ThreadPool::global().parallelFor(blocks, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t block = first; block < last; ++block) {
      const Eigen::Index begin = blockBegin(left.rows(), blocks, static_cast<int>(block));
      const Eigen::Index end = blockBegin(left.rows(), blocks, static_cast<int>(block) + 1);
      result.middleRows(begin, end - begin).noalias() = left.middleRows(begin, end - begin) * right;
    }
  });
  return result;
}

Matrix multiplyTransposedLeft(const Matrix& left, const Matrix& right) {
  assert(left.rows() == right.rows());
  const int blocks = blockCountFor(left.rows());
  if (blocks <= 1) {
    Matrix result(left.cols(), right.cols());
    result.noalias() = left.transpose() * right;
    return result;
  }
  std::vector<Matrix> partials(static_cast<std::size_t>(blocks));
  runtime::ThreadPool::global().parallelFor(blocks, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t block = first; block < last; ++block) {
      const Eigen::Index begin = blockBegin(left.rows(), blocks, static_cast<int>(block));
      const Eigen::Index end = blockBegin(left.rows(), blocks, static_cast<int>(block) + 1);
      Matrix& partial = partials[static_cast<std::size_t>(block)];
      partial.resize(left.cols(), right.cols());
      partial.noalias() =
          left.middleRows(begin, end - begin).transpose() * right.middleRows(begin, end - begin);
    }
  });
  Matrix result = std::move(partials[0]);
  for (std::size_t block = 1; block < partials.size(); ++block)
    result += partials[block];
  return result;
}

} // namespace clustune::nn
