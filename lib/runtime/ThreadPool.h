// The persistent thread pool behind every parallel loop (DESIGN §4.5): generated kernels call
// clustune_parallel_for, the graph executor and tests call ThreadPool::parallelFor. Workers are
// created once and wait for work by spinning briefly and then sleeping, so that launching a
// parallel region costs a fraction of a microsecond, not a thread creation. Work is split into
// static, contiguous chunks (one per thread, the calling thread runs the first), which keeps
// each chunk on its own part of the output and makes results independent of timing. Which
// thread runs a chunk is not fixed: each one is claimed atomically, and a thread that finishes
// early claims chunks no one has started, so a worker that the OS has not scheduled yet (other
// processes on the machine) delays a region by its chunk's work, not by a time slice.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace clustune::runtime {

class ThreadPool {
public:
  using RangeBody = std::function<void(std::int64_t begin, std::int64_t end)>;

  static constexpr int kMaxThreads = 4096;

  // `threadCount` counts the calling thread: a pool of N starts N - 1 workers.
  explicit ThreadPool(int threadCount);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // The process-wide pool that generated code uses; starts with hardware concurrency threads.
  static ThreadPool& global();

  // Replaces the workers. Throws clustune::Error for a count outside [1, kMaxThreads] or when
  // called from inside a parallel region (the region's workers would be torn down under it).
  void setThreadCount(int threadCount);
  int threadCount() const;

  // Calls body(begin, end) on disjoint contiguous chunks that cover [0, extent), in parallel,
  // and returns when all are done. The first exception thrown by any chunk is rethrown here
  // after every chunk has finished. A call from inside a parallel region (nested parallelism)
  // runs body(0, extent) on the calling thread. Calls from different threads take turns.
  void parallelFor(std::int64_t extent, const RangeBody& body);

  // Whether the calling thread is running a chunk of a parallel region.
  static bool insideParallelRegion();

private:
  void startWorkers(int workerCount);
  void stopWorkers();
  void workerLoop(std::uint32_t startGeneration);
  // Claims and runs chunks of the job that `work` describes until none is left unclaimed.
  void runClaimedChunks(std::uint64_t work);
  void runChunk(int chunkIndex, int chunkCount);

  // One parallel region at a time; also guards setThreadCount against a running region.
  std::mutex launchMutex_;

  // The current job as one word: generation (32 bits), chunk count (16), next unclaimed chunk
  // (16). Claiming a chunk is a compare-and-swap on it, so a thread that read a stale job can
  // never claim a chunk of a newer one. The job's other fields are written before the word is
  // published and stay valid until every chunk has completed (completedChunks_), which the
  // launcher waits for; only a thread holding a claim reads them.
  std::atomic<std::uint64_t> work_{0};
  std::uint32_t generation_ = 0; // the launcher's copy
  std::atomic<int> completedChunks_{0};
  const RangeBody* body_ = nullptr;
  std::int64_t extent_ = 0;
  std::exception_ptr firstError_;
  std::mutex errorMutex_;

  // Sleeping and waking.
  std::mutex mutex_;
  std::condition_variable workAvailable_;
  std::condition_variable workFinished_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> threadCount_{1};
  bool spin_ = true; // whether waiting threads poll before sleeping: not when oversubscribed

  std::vector<std::thread> workers_;
};

} // namespace clustune::runtime

// The entry point that generated code calls for a Parallel loop: runs
// body(begin, end, closure) over chunks of [0, extent) on ThreadPool::global(). Returns 0, or 1
// when a chunk threw (generated code never throws; the status exists for hand-written callers).
extern "C" int clustune_parallel_for(std::int64_t extent,
                                     void (*body)(std::int64_t begin, std::int64_t end,
                                                  void* closure),
                                     void* closure);
