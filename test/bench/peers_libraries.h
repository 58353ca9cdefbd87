// The peer libraries bench-peers compares clustune with, as Timers: one call times one repeat
// (warm-up included on the first), so that the implementations of a case can be timed in
// interleaved rounds and share the noise of a machine that other work also uses.
#pragma once

#include "peers_cases.h"

#include <functional>

namespace clustune::bench {

using Timer = std::function<double()>;

// One repeat as clustune's worker times it: at least 100 ms of runs, mean seconds per run.
double oneRepeat(const std::function<void()>& run);

// Eigen and cblas_sgemm for GEMMs and 1x1 convolutions (the GEMM W[K, C] · X[C, H·W] only).
Timer eigenGemm(const Case& c, int threads);
Timer openblasGemm(const Case& c, int threads);
// dnnl::matmul; dnnl::convolution_forward with the task's bias, residual sum and ReLU as
// post-ops, on NCHW tensors or (`blocked`) on the layouts oneDNN prefers, reorders not timed.
Timer onednnMatmul(const Case& c, int threads);
Timer onednnConv(const Case& c, bool blocked, int threads);

} // namespace clustune::bench
