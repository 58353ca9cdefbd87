// Eigen's GEMM for bench-peers (peers.cpp), in its own file so that only Eigen's code gets the
// flags it needs: -O3 -march=native as a user builds it, OpenMP threads, and no
// -Wmaybe-uninitialized, which GCC 12 raises inside Eigen's AVX-512 kernels (a false positive).
#include "peers_eigen.h"

#include <Eigen/Core>

double eigenGemmSeconds(const float* a, const float* b, float* out, long m, long n, long k,
                        int threads,
                        const std::function<double(const std::function<void()>&)>& time) {
  using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::setNbThreads(threads);
  Eigen::Map<const Matrix> left(a, m, k), right(b, k, n);
  Eigen::Map<Matrix> result(out, m, n);
  return time([&] { result.noalias() = left * right; });
}
