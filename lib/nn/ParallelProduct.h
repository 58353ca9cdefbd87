// Matrix products split over the process's thread pool (runtime::ThreadPool::global()), so that
// training and batched inference use every core without OpenMP: Eigen's own products run on
// one thread here, and these helpers hand each thread a contiguous block of rows.
#pragma once

#include "nn/Parameter.h"

namespace clustune::nn {

// left · right, with the rows of `left` split across threads.
Matrix multiply(const Matrix& left, const Matrix& right);

// leftᵀ · right (a weight gradient: inputsᵀ · output gradients). The shared row dimension is
// split across threads and the partial products are summed in a fixed order, so the result
// does not depend on timing.
Matrix multiplyTransposedLeft(const Matrix& left, const Matrix& right);

} // namespace clustune::nn
