// Random GPU schedules of a workload: Ansor's multi-level tiling for GPUs ("SSSRRSRS"). Each
// stage left at root after inlining (outputs and reductions) splits every spatial axis into five
// levels and every reduce axis into three, and orders them
//   S0 S1 S2 R0 R1 S3 R2 S4
// with the S0 parts of all spatial axes fused and bound to blockIdx.x, the S1 parts to vthread
// and the S2 parts to threadIdx.x; the other levels run inside each thread, and the stage gets a
// random auto_unroll_max_step. Factors divide their axes exactly, the threads of a block stay
// within the target's limit and a thread's virtual threads within kMaxVirtualThreads.
//
// A reduction that Ansor's rule finds short of spatial work (with data reuse: spatially no
// larger than a block and smaller than its reduction; without: a reduction longer than a warp)
// reduces across threads half the time, and always when it has no spatial axis: its reduce
// axes fused and split by 32 to 1024 threads (a power of two, at most the reduction) bound to
// threadIdx.x, each thread reducing its share, the shares folded in shared memory; its spatial
// axes fused onto blockIdx.x.
//
// Half the time another reduction with spatial axes reads its operands through shared memory, as
// Ansor's GPU sketch does: each operand (a workload input, or a stage such as a padding, which
// is then inlined into its copy) gets a cache_read into "shared" computed at the reduction's
// innermost R0 loop, whose elements the block's threads fetch together (fused, split by the
// thread count and a vector width of 1, 2 or 4, bound to threadIdx.x). Schedules whose shared
// copies exceed the target's shared memory per block are not drawn.
#pragma once

#include "schedule/Step.h"
#include "te/Tensor.h"

#include <cstdint>
#include <vector>

namespace clustune::search {

struct GpuSampleOptions {
  int maxThreadsPerBlock = 1024;
  std::int64_t maxSharedMemoryPerBlock = 48 * 1024; // bytes
};

inline constexpr int kMaxVirtualThreads = 8;
// Ansor's auto_unroll_max_step choices for GPUs.
inline constexpr int kGpuAutoUnrollChoices[] = {0, 16, 64, 512, 1024};

// Up to `count` distinct schedules (by their JSON), candidate i drawn from Rng(seed).fork(i);
// fewer when the space is smaller. Each replays and lowers.
std::vector<std::vector<schedule::Step>> sampleGpu(const te::Workload& workload, int count,
                                                   std::uint64_t seed,
                                                   const GpuSampleOptions& options = {});

} // namespace clustune::search
