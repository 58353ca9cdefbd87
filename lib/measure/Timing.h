// How a candidate is timed (DESIGN §5), inside the worker process: one warm-up run, then
// `repeat` repeats of `number` runs each, where `number` is raised until one repeat lasts at
// least `minRepeatMs`, so that short kernels are not timed at the clock's resolution. With
// cacheFlush, a buffer larger than the last-level cache is written before every run and only the
// run itself is timed, so every run starts with cold caches, as Tenset measured its dataset; with
// coldWeights only the task's weights are evicted before every run. The minimum length of a
// repeat then counts the flushes or evictions too.
// A cost is the mean seconds per run of one repeat; the record keeps all of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace clustune::measure {

struct TimingOptions {
  int number = 1;           // runs per repeat, at least; raised to reach minRepeatMs
  int repeat = 3;           // repeats, one cost each
  double minRepeatMs = 100; // MetaSchedule's default; 0 keeps `number` fixed
  bool cacheFlush = false;
  // Evict the task's weights from every cache level before each run (the warm-up too, which
  // may stand as a hopeless candidate's cost) and leave the activations where the last run
  // left them: a batch-1 inference reads each weight once, from memory, and its input just
  // after the producer wrote it. Warm timing keeps a weight of a few MB in L2 or L3 across runs
  // and ranks schedules that re-read it as if that were free. cacheFlush takes precedence.
  bool coldWeights = false;
  // Early exit for a hopeless candidate: when the warm-up run alone takes longer than this,
  // one repeat stands for all of them (a cost that is many times the task's best needs no
  // second decimal). The repeat still lasts minRepeatMs: a single run of a microsecond kernel
  // times the clock and the thread pool's wake-up, and came out up to 200x its cost. A warm-up
  // that lasted at least minRepeatMs and 10 ms is itself that repeat. 0: never.
  double slowRunSeconds = 0;

  friend bool operator==(const TimingOptions&, const TimingOptions&) = default;
};

// Below about 10 ms a warm-up run is no measurement (first-call costs: up to 64x the timed run
// of a microsecond kernel), above it it is: on Zen 4, 114 hopeless ResNet-50 candidates of 10 ms
// to 0.74 s gave warm-up / timed run median 1.00, p10 0.96, p90 1.17 (docs/throughput.md).
inline constexpr double kWarmUpIsAMeasurementSeconds = 0.010;

// Tenset's dataset settings (REFERENCES.md): number 1, cache flush on, and a repeat count that
// falls with the task's FLOPs (4 at >= 2.4e9, 6 at >= 8.4e8, 10 at <= 2.1e6, else 8).
TimingOptions tensetTimingOptions(std::int64_t taskFlops);

// Runs `run` as described above and returns one mean per repeat, in seconds, by the wall clock.
// With coldWeights and an `evictWeights`, that is called before every run, untimed; without
// one (a task with no weights) the runs are timed as warm ones. Throws clustune::Error for
// number < 1 or repeat < 1.
std::vector<double> timeRuns(const std::function<void()>& run, const TimingOptions& options,
                             const std::function<void()>& evictWeights = {});

// The same protocol over any clock: `timeBatch(n)` makes n runs and returns the seconds they
// took (a GPU times its kernels with its own events, and flushes its own cache). The warm-up
// is timeBatch(1); cacheFlush is timeBatch's business.
std::vector<double> timeBatches(const std::function<double(std::int64_t)>& timeBatch,
                                const TimingOptions& options);

// Writes back and invalidates the cache lines of [data, data + bytes) at every level (clflush on
// x86-64), so that the next read of them comes from memory.
void evictFromCaches(const void* data, std::size_t bytes);

// Bytes written by one cache flush: the largest data or unified cache the OS reports, doubled
// (caches are not strictly LRU), or 64 MiB when it reports none.
std::int64_t cacheFlushBytes();

} // namespace clustune::measure
