// Measures the launch overhead of runtime::ThreadPool (2 threads by default), as medians over
// many launches. This is the fixed cost a Parallel loop in generated code pays per execution,
// so schedules with parallel loops inside serial loops pay it many times. Two bodies:
// - empty: what a parallel loop with almost no work costs (the calling thread may claim the
//   other chunks before a worker does);
// - rendezvous: every chunk waits until all chunks have started, which forces a full hand-off
//   to every worker and back, the cost of a loop whose work really is shared.
// Usage: bench-thread-pool [threads] [launches]
#include "runtime/ThreadPool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  using Clock = std::chrono::steady_clock;
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  const int launches = argc > 2 ? std::atoi(argv[2]) : 20000;
  if (threads < 1 || launches < 1) {
    std::fprintf(stderr, "usage: bench-thread-pool [threads >= 1] [launches >= 1]\n");
    return 2;
  }
  clustune::runtime::ThreadPool pool(threads);
  // Touching every chunk keeps the compiler from proving the body empty.
  std::vector<std::int64_t> touched(threads, 0);
  const auto empty = [&](std::int64_t begin, std::int64_t end) {
    touched[begin % threads] += end - begin;
  };
  std::atomic<int> arrived{0};
  const auto rendezvous = [&](std::int64_t, std::int64_t) {
    arrived.fetch_add(1);
    while (arrived.load() < threads) {
    }
  };

  const auto report = [&](const char* name, const auto& body, bool resetArrivals) {
    for (int i = 0; i < 1000; ++i) { // warm-up: threads started, caches and predictors hot
      arrived.store(0);
      pool.parallelFor(threads, body);
    }
    std::vector<double> nanoseconds(launches);
    for (double& sample : nanoseconds) {
      if (resetArrivals)
        arrived.store(0);
      const auto start = Clock::now();
      pool.parallelFor(threads, body);
      sample = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
    }
    std::sort(nanoseconds.begin(), nanoseconds.end());
    const auto percentile = [&](double p) {
      return nanoseconds[static_cast<std::size_t>(p * (launches - 1))];
    };
    std::printf("%-10s threads %d, launches %d: median %.0f ns, p10 %.0f ns, p90 %.0f ns, "
                "p99 %.0f ns\n",
                name, threads, launches, percentile(0.5), percentile(0.1), percentile(0.9),
                percentile(0.99));
  };
  report("empty", empty, false);
  report("rendezvous", rendezvous, true);
  return 0;
}
