// runtime::ThreadPool: coverage of every index, static chunking, nesting, exceptions and the C
// entry point that generated kernels call.
#include "runtime/ThreadPool.h"

#include "support/Error.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <gtest/gtest.h>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

using clustune::runtime::ThreadPool;

namespace {

struct Chunk {
  std::int64_t begin, end;
  std::thread::id thread;
};

std::vector<Chunk> recordChunks(ThreadPool& pool, std::int64_t extent,
                                std::vector<std::atomic<int>>& visits) {
  std::mutex mutex;
  std::vector<Chunk> chunks;
  pool.parallelFor(extent, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i)
      visits[i].fetch_add(1);
    std::lock_guard lock(mutex);
    chunks.push_back({begin, end, std::this_thread::get_id()});
  });
  return chunks;
}

} // namespace

TEST(ThreadPool, EveryIndexOnceInBalancedContiguousChunks) {
  for (int threads : {1, 2, 3, 4, 8}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.threadCount(), threads);
    for (std::int64_t extent : {1, 2, 3, 7, 64, 1000, 100003}) {
      std::vector<std::atomic<int>> visits(extent);
      std::vector<Chunk> chunks = recordChunks(pool, extent, visits);
      for (std::int64_t i = 0; i < extent; ++i)
        ASSERT_EQ(visits[i].load(), 1) << "threads " << threads << " extent " << extent;

      const std::int64_t expectedChunks = std::min<std::int64_t>(threads, extent);
      ASSERT_EQ(static_cast<std::int64_t>(chunks.size()), expectedChunks);
      std::sort(chunks.begin(), chunks.end(),
                [](const Chunk& a, const Chunk& b) { return a.begin < b.begin; });
      for (std::size_t c = 0; c < chunks.size(); ++c) {
        // Static chunks: sizes floor(extent/n) or one more, the larger ones first.
        const std::int64_t size = chunks[c].end - chunks[c].begin;
        const std::int64_t small = extent / expectedChunks;
        EXPECT_EQ(size, static_cast<std::int64_t>(c) < extent % expectedChunks ? small + 1 : small);
        EXPECT_EQ(chunks[c].begin, c == 0 ? 0 : chunks[c - 1].end);
      }
      // The caller always runs the first chunk; the others go to whoever claims them first.
      EXPECT_EQ(chunks.front().thread, std::this_thread::get_id());
    }
  }
}

TEST(ThreadPool, ChunksRunConcurrently) {
  // The caller's chunk waits for the other chunk to start: that finishes only if another
  // thread runs it at the same time (a pool that ran chunks one after another would time out).
  ThreadPool pool(2);
  std::atomic<bool> secondStarted{false};
  bool sawSecond = false;
  pool.parallelFor(2, [&](std::int64_t begin, std::int64_t) {
    if (begin == 1) {
      secondStarted.store(true);
      return;
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!secondStarted.load() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::yield();
    sawSecond = secondStarted.load();
  });
  EXPECT_TRUE(sawSecond);
}

TEST(ThreadPool, ZeroExtentNeverCallsTheBody) {
  ThreadPool pool(3);
  int calls = 0;
  pool.parallelFor(0, [&](std::int64_t, std::int64_t) { ++calls; });
  pool.parallelFor(-5, [&](std::int64_t, std::int64_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

TEST(ThreadPool, NestedParallelForRunsSeriallyInTheCallingThread) {
  ThreadPool pool(4);
  constexpr std::int64_t outer = 8, inner = 37;
  std::vector<std::atomic<int>> visits(outer * inner);
  std::atomic<int> innerCallsOnOtherThreads{0}, innerChunks{0};
  pool.parallelFor(outer, [&](std::int64_t begin, std::int64_t end) {
    EXPECT_TRUE(ThreadPool::insideParallelRegion());
    for (std::int64_t o = begin; o < end; ++o) {
      const std::thread::id outerThread = std::this_thread::get_id();
      pool.parallelFor(inner, [&](std::int64_t innerBegin, std::int64_t innerEnd) {
        innerChunks.fetch_add(1);
        if (std::this_thread::get_id() != outerThread)
          innerCallsOnOtherThreads.fetch_add(1);
        for (std::int64_t i = innerBegin; i < innerEnd; ++i)
          visits[o * inner + i].fetch_add(1);
      });
    }
  });
  for (auto& visit : visits)
    ASSERT_EQ(visit.load(), 1);
  EXPECT_EQ(innerChunks.load(), outer); // one whole-range chunk per outer index
  EXPECT_EQ(innerCallsOnOtherThreads.load(), 0);
  EXPECT_FALSE(ThreadPool::insideParallelRegion());
}

TEST(ThreadPool, ExceptionsFromWorkersAndCallerPropagate) {
  ThreadPool pool(4);
  // Index 99 lies in the last chunk, a worker's unless the caller claims it first.
  EXPECT_THROW(pool.parallelFor(100,
                                [](std::int64_t begin, std::int64_t end) {
                                  if (begin <= 99 && 99 < end)
                                    throw std::runtime_error("worker failed");
                                }),
               std::runtime_error);
  // Index 0 lies in the caller's chunk; the other chunks still run before the rethrow.
  std::atomic<std::int64_t> covered{0};
  EXPECT_THROW(pool.parallelFor(100,
                                [&](std::int64_t begin, std::int64_t end) {
                                  if (begin == 0)
                                    throw std::logic_error("caller failed");
                                  covered.fetch_add(end - begin);
                                }),
               std::logic_error);
  EXPECT_EQ(covered.load(), 75);
  // The pool stays usable.
  std::atomic<std::int64_t> sum{0};
  pool.parallelFor(1000, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i)
      sum.fetch_add(i);
  });
  EXPECT_EQ(sum.load(), 999 * 1000 / 2);
}

TEST(ThreadPool, SetThreadCountResizesAndValidates) {
  ThreadPool pool(2);
  pool.setThreadCount(5);
  EXPECT_EQ(pool.threadCount(), 5);
  std::vector<std::atomic<int>> visits(11);
  EXPECT_EQ(recordChunks(pool, 11, visits).size(), 5u);
  pool.setThreadCount(1);
  EXPECT_EQ(recordChunks(pool, 11, visits).size(), 1u);
  for (auto& visit : visits)
    EXPECT_EQ(visit.load(), 2);
  EXPECT_THROW(pool.setThreadCount(0), clustune::Error);
  EXPECT_THROW(pool.setThreadCount(ThreadPool::kMaxThreads + 1), clustune::Error);
  EXPECT_THROW(ThreadPool(-1), clustune::Error);
  pool.setThreadCount(2);
  bool threwInside = false;
  pool.parallelFor(2, [&](std::int64_t begin, std::int64_t) {
    if (begin == 0) {
      try {
        pool.setThreadCount(3);
      } catch (const clustune::Error&) {
        threwInside = true;
      }
    }
  });
  EXPECT_TRUE(threwInside);
  EXPECT_EQ(pool.threadCount(), 2);
}

TEST(ThreadPool, ConcurrentLaunchersTakeTurns) {
  ThreadPool pool(3);
  std::vector<std::atomic<int>> visits(4 * 5000);
  std::vector<std::thread> launchers;
  for (int l = 0; l < 4; ++l)
    launchers.emplace_back([&, l] {
      for (int repeat = 0; repeat < 50; ++repeat)
        pool.parallelFor(5000, [&](std::int64_t begin, std::int64_t end) {
          for (std::int64_t i = begin; i < end; ++i)
            visits[l * 5000 + i].fetch_add(1);
        });
    });
  for (std::thread& launcher : launchers)
    launcher.join();
  for (auto& visit : visits)
    ASSERT_EQ(visit.load(), 50);
}

namespace {
struct SumClosure {
  std::vector<std::int64_t>* values;
  std::atomic<std::int64_t>* total;
};

void sumRange(std::int64_t begin, std::int64_t end, void* closure) {
  auto* sum = static_cast<SumClosure*>(closure);
  std::int64_t partial = 0;
  for (std::int64_t i = begin; i < end; ++i)
    partial += (*sum->values)[i];
  sum->total->fetch_add(partial);
}
} // namespace

TEST(ThreadPool, CEntryPointRunsOnTheGlobalPool) {
  std::vector<std::int64_t> values(12345);
  std::int64_t expected = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    values[i] = static_cast<std::int64_t>(i * i % 1009);
    expected += values[i];
  }
  std::atomic<std::int64_t> total{0};
  SumClosure closure{&values, &total};
  EXPECT_EQ(clustune_parallel_for(static_cast<std::int64_t>(values.size()), sumRange, &closure), 0);
  EXPECT_EQ(total.load(), expected);
  EXPECT_GE(ThreadPool::global().threadCount(), 1);

  // A throwing body reports failure through the status instead of unwinding into generated code.
  EXPECT_EQ(
      clustune_parallel_for(
          4, [](std::int64_t, std::int64_t, void*) { throw std::runtime_error("x"); }, nullptr),
      1);
}
