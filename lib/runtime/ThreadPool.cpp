// See ThreadPool.h. Launch protocol: the launcher writes the job's fields, publishes the job
// word (generation, chunk count, next chunk = 1: chunk 0 is its own) and wakes the workers, runs
// chunk 0, claims whatever chunks are still unclaimed, and waits until every chunk has
// completed. Workers that see a new generation claim chunks until none is left.
#include "runtime/ThreadPool.h"

#include "support/Error.h"

#include <algorithm>
#include <chrono>
#include <utility>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace clustune::runtime {
namespace {

// How long an idle thread polls before it sleeps. Long enough to cover the gap between the
// back-to-back launches of a timing loop or a graph executor, short enough not to steal much
// time from other processes when the pool is idle.
constexpr auto kSpinTime = std::chrono::microseconds(50);

thread_local bool tlInsideParallelRegion = false;

void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

// Polls `done` for up to kSpinTime; true when it became true. With more threads than cores a
// spinning thread would take the core from the thread it waits for, so it only checks once.
template <class Predicate>
bool spinUntil(bool spin, const Predicate& done) {
  if (!spin)
    return done();
  const auto deadline = std::chrono::steady_clock::now() + kSpinTime;
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (done())
        return true;
      cpuRelax();
    }
    if (std::chrono::steady_clock::now() >= deadline)
      return done();
  }
}

class RegionGuard {
public:
  RegionGuard() : previous_(tlInsideParallelRegion) { tlInsideParallelRegion = true; }
  ~RegionGuard() { tlInsideParallelRegion = previous_; }
  RegionGuard(const RegionGuard&) = delete;
  RegionGuard& operator=(const RegionGuard&) = delete;

private:
  bool previous_;
};

int defaultThreadCount() {
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

constexpr std::uint32_t generationOf(std::uint64_t work) {
  return static_cast<std::uint32_t>(work >> 32);
}
constexpr int chunkCountOf(std::uint64_t work) {
  return static_cast<int>((work >> 16) & 0xFFFF);
}
constexpr int nextChunkOf(std::uint64_t work) {
  return static_cast<int>(work & 0xFFFF);
}
constexpr std::uint64_t packWork(std::uint32_t generation, int chunkCount, int nextChunk) {
  return (std::uint64_t{generation} << 32) | (std::uint64_t(chunkCount) << 16) |
         std::uint64_t(nextChunk);
}

void checkThreadCount(int threadCount) {
  if (threadCount < 1 || threadCount > ThreadPool::kMaxThreads)
    throw Error("thread count must be between 1 and " + std::to_string(ThreadPool::kMaxThreads) +
                ", got " + std::to_string(threadCount));
}

} // namespace

ThreadPool::ThreadPool(int threadCount) {
  checkThreadCount(threadCount);
  startWorkers(threadCount - 1);
}

ThreadPool::~ThreadPool() {
  stopWorkers();
}

ThreadPool& ThreadPool::global() {
  static ThreadPool pool(defaultThreadCount());
  return pool;
}

void ThreadPool::setThreadCount(int threadCount) {
  checkThreadCount(threadCount);
  if (tlInsideParallelRegion)
    throw Error("cannot change the thread count from inside a parallel region");
  std::lock_guard launch(launchMutex_);
  if (threadCount == threadCount_.load())
    return;
  stopWorkers();
  startWorkers(threadCount - 1);
}

int ThreadPool::threadCount() const {
  return threadCount_.load(std::memory_order_relaxed);
}

bool ThreadPool::insideParallelRegion() {
  return tlInsideParallelRegion;
}

void ThreadPool::startWorkers(int workerCount) {
  stopping_.store(false);
  spin_ = workerCount + 1 <= defaultThreadCount(); // before the workers start reading it
  const std::uint32_t startGeneration = generation_;
  workers_.reserve(workerCount);
  for (int i = 0; i < workerCount; ++i)
    workers_.emplace_back([this, startGeneration] { workerLoop(startGeneration); });
  threadCount_.store(workerCount + 1);
}

void ThreadPool::stopWorkers() {
  {
    std::lock_guard lock(mutex_);
    stopping_.store(true);
  }
  workAvailable_.notify_all();
  for (std::thread& worker : workers_)
    worker.join();
  workers_.clear();
}

void ThreadPool::workerLoop(std::uint32_t startGeneration) {
  // A worker is always inside a region: a parallelFor it runs is nested and stays serial.
  tlInsideParallelRegion = true;
  std::uint32_t seen = startGeneration;
  const auto wakeUp = [&] {
    return generationOf(work_.load(std::memory_order_acquire)) != seen || stopping_.load();
  };
  for (;;) {
    if (!spinUntil(spin_, wakeUp)) {
      std::unique_lock lock(mutex_);
      workAvailable_.wait(lock, wakeUp);
    }
    if (stopping_.load())
      return;
    const std::uint64_t work = work_.load(std::memory_order_acquire);
    seen = generationOf(work);
    runClaimedChunks(work);
  }
}

void ThreadPool::runClaimedChunks(std::uint64_t work) {
  const std::uint32_t generation = generationOf(work);
  while (generationOf(work) == generation && nextChunkOf(work) < chunkCountOf(work)) {
    if (!work_.compare_exchange_weak(work, work + 1, std::memory_order_acq_rel,
                                     std::memory_order_acquire))
      continue; // `work` now holds the current word
    const int chunkCount = chunkCountOf(work);
    runChunk(nextChunkOf(work), chunkCount);
    if (completedChunks_.fetch_add(1, std::memory_order_acq_rel) + 1 == chunkCount) {
      // Locking before notifying closes the window between the launcher's last check of
      // completedChunks_ and its wait.
      std::lock_guard lock(mutex_);
      workFinished_.notify_one();
    }
    work = work_.load(std::memory_order_acquire);
  }
}

void ThreadPool::runChunk(int chunkIndex, int chunkCount) {
  // Chunk sizes differ by at most one: the first `remainder` chunks take one extra index.
  const std::int64_t base = extent_ / chunkCount;
  const std::int64_t remainder = extent_ % chunkCount;
  const std::int64_t begin = chunkIndex * base + std::min<std::int64_t>(chunkIndex, remainder);
  const std::int64_t end = begin + base + (chunkIndex < remainder ? 1 : 0);
  try {
    (*body_)(begin, end);
  } catch (...) {
    std::lock_guard lock(errorMutex_);
    if (!firstError_)
      firstError_ = std::current_exception();
  }
}

void ThreadPool::parallelFor(std::int64_t extent, const RangeBody& body) {
  if (extent <= 0)
    return;
  if (tlInsideParallelRegion) {
    body(0, extent);
    return;
  }
  // A single chunk needs no workers; running it outside a region lets a parallel loop nested
  // inside it use the pool.
  if (extent == 1 || threadCount() == 1) {
    body(0, extent);
    return;
  }
  std::lock_guard launch(launchMutex_);
  const int chunkCount = static_cast<int>(
      std::min<std::int64_t>(static_cast<std::int64_t>(workers_.size()) + 1, extent));
  body_ = &body;
  extent_ = extent;
  firstError_ = nullptr;
  completedChunks_.store(0, std::memory_order_relaxed);
  const std::uint64_t work = packWork(++generation_, chunkCount, 1);
  {
    std::lock_guard lock(mutex_);
    work_.store(work, std::memory_order_release);
  }
  workAvailable_.notify_all();
  {
    RegionGuard region;
    runChunk(0, chunkCount);
    completedChunks_.fetch_add(1, std::memory_order_acq_rel);
    runClaimedChunks(work_.load(std::memory_order_acquire));
  }
  const auto finished = [&] {
    return completedChunks_.load(std::memory_order_acquire) == chunkCount;
  };
  if (!spinUntil(spin_, finished)) {
    std::unique_lock lock(mutex_);
    workFinished_.wait(lock, finished);
  }
  body_ = nullptr;
  if (firstError_)
    std::rethrow_exception(std::exchange(firstError_, nullptr));
}

} // namespace clustune::runtime

extern "C" int clustune_parallel_for(std::int64_t extent,
                                     void (*body)(std::int64_t begin, std::int64_t end,
                                                  void* closure),
                                     void* closure) {
  try {
    clustune::runtime::ThreadPool::global().parallelFor(
        extent, [&](std::int64_t begin, std::int64_t end) { body(begin, end, closure); });
    return 0;
  } catch (...) {
    return 1;
  }
}
