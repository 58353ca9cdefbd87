// Eigen's GEMM for bench-peers, kept behind a plain interface (see peers_eigen.cpp).
#pragma once

#include <functional>

// Seconds per C[m, n] = A[m, k] · B[k, n] (row-major) on `threads` threads, as `time` measures
// the call it is given.
double eigenGemmSeconds(const float* a, const float* b, float* out, long m, long n, long k,
                        int threads,
                        const std::function<double(const std::function<void()>&)>& time);
