// See Timing.h.
#include "measure/Timing.h"

#include "support/Error.h"
#include "support/Stopwatch.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <unistd.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace clustune::measure {
namespace {

// Parses sysfs cache sizes such as "32768K".
std::int64_t parseCacheSize(const std::string& text) {
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])))
    ++digits;
  if (digits == 0)
    return 0;
  std::int64_t value = std::stoll(text.substr(0, digits));
  if (digits < text.size() && text[digits] == 'K')
    value <<= 10;
  else if (digits < text.size() && text[digits] == 'M')
    value <<= 20;
  return value;
}

std::int64_t largestCacheBytes() {
  std::int64_t largest = 0;
  for (int index = 0; index < 8; ++index) {
    const std::string directory =
        "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream typeFile(directory + "type"), sizeFile(directory + "size");
    std::string type, size;
    if (!(typeFile >> type) || !(sizeFile >> size))
      break;
    if (type != "Instruction")
      largest = std::max(largest, parseCacheSize(size));
  }
  return largest;
}

// Writes every cache line of a buffer larger than the caches, evicting the kernel's data.
class CacheFlusher {
public:
  CacheFlusher() : buffer_(static_cast<std::size_t>(cacheFlushBytes())) {}
  void flush() {
    ++generation_;
    std::memset(buffer_.data(), generation_, buffer_.size());
    // Keeps the compiler from treating the writes as dead.
    asm volatile("" : : "r"(buffer_.data()) : "memory");
  }

private:
  std::vector<unsigned char> buffer_;
  unsigned char generation_ = 0;
};

} // namespace

std::int64_t cacheFlushBytes() {
  static const std::int64_t bytes = [] {
    const std::int64_t largest = largestCacheBytes();
    return largest > 0 ? 2 * largest : std::int64_t{64} << 20;
  }();
  return bytes;
}

TimingOptions tensetTimingOptions(std::int64_t taskFlops) {
  TimingOptions options{.number = 1, .repeat = 8, .minRepeatMs = 0, .cacheFlush = true};
  if (taskFlops >= 2'400'000'000)
    options.repeat = 4;
  else if (taskFlops >= 840'000'000)
    options.repeat = 6;
  else if (taskFlops <= 2'100'000)
    options.repeat = 10;
  return options;
}

std::vector<double> timeRuns(const std::function<void()>& run, const TimingOptions& options,
                             const std::function<void()>& evictWeights) {
  std::optional<CacheFlusher> flusher;
  if (options.cacheFlush && options.number >= 1 && options.repeat >= 1)
    flusher.emplace();
  std::function<void()> beforeRun;
  if (flusher)
    beforeRun = [&] { flusher->flush(); };
  else if (options.coldWeights && evictWeights)
    beforeRun = evictWeights;
  // Seconds that `number` runs take, flushes and evictions excluded.
  return timeBatches(
      [&](std::int64_t number) {
        if (!beforeRun) {
          const auto start = SteadyClock::now();
          for (std::int64_t i = 0; i < number; ++i)
            run();
          return secondsSince(start);
        }
        double total = 0;
        for (std::int64_t i = 0; i < number; ++i) {
          beforeRun();
          const auto start = SteadyClock::now();
          run();
          total += secondsSince(start);
        }
        return total;
      },
      options);
}

void evictFromCaches(const void* data, std::size_t bytes) {
  const auto* bytesToEvict = static_cast<const char*>(data);
#if defined(__x86_64__)
  // Every 64-byte line of the range, then a fence: a later load cannot be served from a line
  // whose flush has not completed.
  constexpr std::size_t kLine = 64;
  for (std::size_t offset = 0; offset < bytes; offset += kLine)
    _mm_clflush(bytesToEvict + offset);
  if (bytes > 0)
    _mm_clflush(bytesToEvict + bytes - 1);
  _mm_mfence();
#else
  static_cast<void>(bytesToEvict);
  static_cast<void>(bytes);
  CacheFlusher().flush();
#endif
}

std::vector<double> timeBatches(const std::function<double(std::int64_t)>& timeRepeat,
                                const TimingOptions& options) {
  if (options.number < 1 || options.repeat < 1)
    throw Error("timing needs number >= 1 and repeat >= 1, got number " +
                std::to_string(options.number) + " and repeat " + std::to_string(options.repeat));
  // Warm-up: page faults on the outputs, lazy symbol binding, thread-pool wake-up.
  const double warmUpSeconds = timeRepeat(1);
  const bool hopeless = options.slowRunSeconds > 0 && warmUpSeconds > options.slowRunSeconds;
  const std::size_t repeats = hopeless ? 1 : static_cast<std::size_t>(options.repeat);
  const double minRepeatSeconds = options.minRepeatMs / 1000.0;
  // A hopeless candidate whose warm-up alone lasted a whole repeat keeps that run as its one
  // cost: its timed repeat would be one more run of the same length (a throughput run spends a
  // quarter less time running, docs/throughput.md).
  if (hopeless && warmUpSeconds >= std::max(minRepeatSeconds, kWarmUpIsAMeasurementSeconds))
    return {warmUpSeconds};
  // A bound on number keeps a kernel that takes no measurable time from looping for ever.
  constexpr std::int64_t kMaxNumber = std::int64_t{1} << 30;
  std::int64_t number = options.number;
  std::vector<double> costs;
  while (costs.size() < repeats) {
    const auto start = SteadyClock::now();
    const double seconds = timeRepeat(number);
    // Flushed runs are cold runs: a repeat of a microsecond kernel that lasted the minimum in
    // kernel time alone would flush the cache thousands of times (seconds per candidate, past
    // the worker's time limit). With flushing or evicting, the minimum counts them too.
    const double spent = options.cacheFlush || options.coldWeights ? secondsSince(start) : seconds;
    if (spent < minRepeatSeconds && number < kMaxNumber) {
      // As TVM's time evaluator: aim past the minimum with one new estimate, at least doubling.
      const double perRun = spent / static_cast<double>(number);
      const double wanted =
          std::min(static_cast<double>(kMaxNumber),
                   perRun > 0 ? std::ceil(minRepeatSeconds * 1.2 / perRun) : 2.0 * number);
      number = std::min(kMaxNumber, std::max(2 * number, static_cast<std::int64_t>(wanted)));
      continue;
    }
    costs.push_back(seconds / static_cast<double>(number));
  }
  return costs;
}

} // namespace clustune::measure
