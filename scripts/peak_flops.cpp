// The machine's fp32 FMA peak, the ceiling that docs/performance.md sets clustune's kernels and
// the peer libraries against. Every thread runs independent FMA chains on the widest vectors the
// compiler targets (-march=native: 512-bit zmm with AVX-512, 256-bit ymm with AVX2), enough of
// them to cover FMA latency × throughput (4 cycles × 2 pipes = 8 on Zen 4/5 and Sapphire
// Rapids; 16 leaves slack), so that nothing but the FMA units limits it. Built and run by
// scripts/peak_flops; usage: peak_flops [runs] [threads-for-the-all-core-row]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <pthread.h>
#include <sched.h>
#include <string>
#include <thread>
#include <vector>

namespace {

#if defined(__AVX512F__)
constexpr int kVectorBytes = 64;
constexpr int kAccumulators = 16; // of 32 zmm registers (CHAINS below)
constexpr const char* kIsa = "avx512";
#elif defined(__AVX__)
constexpr int kVectorBytes = 32;
constexpr int kAccumulators = 12; // of 16 ymm registers; two more hold the operands
constexpr const char* kIsa = "avx2";
#else
constexpr int kVectorBytes = 16;
constexpr int kAccumulators = 12;
constexpr const char* kIsa = "sse";
#endif
constexpr int kLanes = kVectorBytes / 4;

typedef float Vector __attribute__((vector_size(kVectorBytes)));

// Iterations of the FMA block per timed call: about 60 ms at 200 GFLOP/s per core, long enough
// for a clean median, short enough for a shared machine.
constexpr long kIterations = 20'000'000;
constexpr double kFlopsPerIteration = 2.0 * kLanes * kAccumulators;

// One invocation of X per accumulator. Named variables rather than an array: GCC keeps an
// array of vectors in memory, and a load and a store per FMA would measure the cache instead.
#define CHAINS12(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#if defined(__AVX512F__)
#define CHAINS(X) CHAINS12(X) X(12) X(13) X(14) X(15)
#else
#define CHAINS(X) CHAINS12(X)
#endif

// The chains depend only on themselves (acc = acc * a + b), so the loop runs at the FMA
// throughput. `a` and `b` come from memory through `volatile` so that the compiler cannot fold
// the chain into a closed form; the result is returned so that it is not removed.
__attribute__((noinline)) float fmaChains(long iterations, float seed) {
  volatile float multiplier = 0.999999f, addend = 1e-7f;
  Vector a, b;
  for (int lane = 0; lane < kLanes; ++lane) {
    a[lane] = multiplier;
    b[lane] = addend;
  }
#define DECLARE(i) Vector acc##i = b + (seed + static_cast<float>(i));
  CHAINS(DECLARE)
  for (long iteration = 0; iteration < iterations; ++iteration) {
    // acc * a + b contracts into one vfmadd (-ffp-contract=fast). The empty asm claims to
    // change each accumulator, which keeps it in a register and stops the compiler from
    // combining iterations.
#define STEP(i)                                                                                    \
  acc##i = acc##i * a + b;                                                                         \
  asm volatile("" : "+v"(acc##i));
    CHAINS(STEP)
  }
  Vector sum = b;
#define SUM(i) sum += acc##i;
  CHAINS(SUM)
  float total = 0;
  for (int lane = 0; lane < kLanes; ++lane)
    total += sum[lane];
  return total;
}

void pinToCpu(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu % CPU_SETSIZE, &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set); // best effort: a cgroup may refuse
}

// GFLOP/s of `threads` threads running fmaChains at once, from the first start to the last end.
double measureOnce(int threads) {
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> workers;
  std::vector<float> sinks(threads);
  std::vector<std::chrono::steady_clock::time_point> ends(threads);
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      pinToCpu(t);
      fmaChains(kIterations / 100, 1.0f); // warm-up: clocks up, AVX-512 power licence granted
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) {
      }
      sinks[t] = fmaChains(kIterations, static_cast<float>(t));
      ends[t] = std::chrono::steady_clock::now();
    });
  while (ready.load() < threads) {
  }
  const auto start = std::chrono::steady_clock::now();
  go.store(true, std::memory_order_release);
  for (std::thread& worker : workers)
    worker.join();
  const auto end = *std::max_element(ends.begin(), ends.end());
  const double seconds = std::chrono::duration<double>(end - start).count();
  if (sinks[0] == 12345.678f) // never true; keeps the results alive
    std::puts("");
  return threads * kIterations * kFlopsPerIteration / seconds * 1e-9;
}

struct Summary {
  double median, min, max;
};

Summary measure(int threads, int runs) {
  std::vector<double> samples;
  for (int run = 0; run < runs; ++run)
    samples.push_back(measureOnce(threads));
  std::sort(samples.begin(), samples.end());
  return {samples[samples.size() / 2], samples.front(), samples.back()};
}

} // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 7;
  const int allThreads = argc > 2 ? std::max(1, std::atoi(argv[2]))
                                  : std::max(1u, std::thread::hardware_concurrency());
  const Summary single = measure(1, runs);
  const Summary all = measure(allThreads, runs);
  std::printf("fp32 FMA peak: %s, %d-bit vectors, %d independent chains per thread, median of %d "
              "runs\n",
              kIsa, kVectorBytes * 8, kAccumulators, runs);
  std::printf("%-8s %12s %10s %10s %14s\n", "threads", "GFLOP/s", "min", "max", "per thread");
  std::printf("%-8d %12.1f %10.1f %10.1f %14.1f\n", 1, single.median, single.min, single.max,
              single.median);
  std::printf("%-8d %12.1f %10.1f %10.1f %14.1f\n", allThreads, all.median, all.min, all.max,
              all.median / allThreads);
  std::printf("{\"v\":1,\"bench\":\"peak_flops\",\"isa\":\"%s\",\"vector_bits\":%d,"
              "\"chains\":%d,\"runs\":%d,\"single_thread_gflops\":%.1f,\"threads\":%d,"
              "\"all_threads_gflops\":%.1f}\n",
              kIsa, kVectorBytes * 8, kAccumulators, runs, single.median, allThreads, all.median);
  return 0;
}
