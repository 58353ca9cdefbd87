// The machine's memory bandwidth, the ceiling that docs/performance.md sets memory-bound kernels
// (depthwise convolutions, pooling, element-wise chains) against, as peak_flops.cpp is for
// compute-bound ones. STREAM's kernels over arrays far larger than the caches, each thread on
// its own slice (first touched by that thread): read (a sum), write (a fill), copy (b = a) and
// triad (a = b + s·c). Bytes count as STREAM counts them: what the kernel reads plus what it
// writes, without the write-allocate reads. Built and run by scripts/peak_bandwidth; usage:
// peak_bandwidth [runs] [threads-for-the-all-core-row] [MiB per array]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <pthread.h>
#include <sched.h>
#include <string>
#include <thread>
#include <vector>

namespace {

#if defined(__AVX512F__)
constexpr int kVectorBytes = 64;
#elif defined(__AVX__)
constexpr int kVectorBytes = 32;
#else
constexpr int kVectorBytes = 16;
#endif
typedef float Vector __attribute__((vector_size(kVectorBytes)));
constexpr std::size_t kLanes = kVectorBytes / sizeof(float);

struct Arrays {
  Vector* a;
  Vector* b;
  Vector* c;
  std::size_t vectors; // per array
};

void pinToCpu(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu % CPU_SETSIZE, &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set); // best effort
}

// Four independent sums, so that the adds' latency does not bound the loads.
float readKernel(const Vector* a, std::size_t n) {
  Vector s0{}, s1{}, s2{}, s3{};
  for (std::size_t i = 0; i + 4 <= n; i += 4) {
    s0 += a[i];
    s1 += a[i + 1];
    s2 += a[i + 2];
    s3 += a[i + 3];
  }
  const Vector s = (s0 + s1) + (s2 + s3);
  float total = 0;
  for (std::size_t lane = 0; lane < kLanes; ++lane)
    total += s[lane];
  return total;
}

struct Kernel {
  const char* name;
  int arraysTouched; // bytes moved per element: arraysTouched · 4
  std::function<float(const Arrays&, std::size_t, std::size_t)> run; // [begin, end) vectors
};

const std::vector<Kernel>& kernels() {
  static const std::vector<Kernel> all{
      {"read", 1,
       [](const Arrays& x, std::size_t begin, std::size_t end) {
         return readKernel(x.a + begin, end - begin);
       }},
      {"write", 1,
       [](const Arrays& x, std::size_t begin, std::size_t end) {
         const Vector value = Vector{} + 1.5f;
         for (std::size_t i = begin; i < end; ++i)
           x.c[i] = value;
         asm volatile("" ::: "memory");
         return 0.0f;
       }},
      {"copy", 2,
       [](const Arrays& x, std::size_t begin, std::size_t end) {
         for (std::size_t i = begin; i < end; ++i)
           x.b[i] = x.a[i];
         asm volatile("" ::: "memory");
         return 0.0f;
       }},
      {"triad", 3,
       [](const Arrays& x, std::size_t begin, std::size_t end) {
         for (std::size_t i = begin; i < end; ++i)
           x.a[i] = x.b[i] + 3.0f * x.c[i];
         asm volatile("" ::: "memory");
         return 0.0f;
       }},
  };
  return all;
}

// GB/s of `threads` threads running `kernel` over their slices at once, first start to last end.
double measureOnce(const Kernel& kernel, const Arrays& arrays, int threads) {
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> workers;
  std::vector<float> sinks(threads);
  std::vector<std::chrono::steady_clock::time_point> ends(threads);
  const std::size_t slice = arrays.vectors / threads / 4 * 4;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      pinToCpu(t);
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) {
      }
      sinks[t] = kernel.run(arrays, t * slice, (t + 1) * slice);
      ends[t] = std::chrono::steady_clock::now();
    });
  while (ready.load() < threads) {
  }
  const auto start = std::chrono::steady_clock::now();
  go.store(true, std::memory_order_release);
  for (std::thread& worker : workers)
    worker.join();
  const double seconds =
      std::chrono::duration<double>(*std::max_element(ends.begin(), ends.end()) - start).count();
  if (sinks[0] == 12345.678f) // never true; keeps the sums alive
    std::puts("");
  return static_cast<double>(threads * slice) * kVectorBytes * kernel.arraysTouched / seconds *
         1e-9;
}

double median(const Kernel& kernel, const Arrays& arrays, int threads, int runs) {
  std::vector<double> samples;
  for (int run = 0; run < runs; ++run)
    samples.push_back(measureOnce(kernel, arrays, threads));
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

// Each thread first touches its own slices, so that their pages sit on its memory node.
Arrays allocate(std::size_t vectors, int threads) {
  Arrays arrays{};
  arrays.vectors = vectors;
  for (Vector** array : {&arrays.a, &arrays.b, &arrays.c})
    *array = static_cast<Vector*>(std::aligned_alloc(4096, vectors * kVectorBytes));
  std::vector<std::thread> workers;
  const std::size_t slice = vectors / threads / 4 * 4;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      pinToCpu(t);
      for (std::size_t i = t * slice; i < (t + 1) * slice; ++i) {
        arrays.a[i] = Vector{} + 1.0f;
        arrays.b[i] = Vector{} + 2.0f;
        arrays.c[i] = Vector{} + 0.5f;
      }
    });
  for (std::thread& worker : workers)
    worker.join();
  return arrays;
}

} // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 7;
  const int allThreads = argc > 2 ? std::max(1, std::atoi(argv[2]))
                                  : std::max(1u, std::thread::hardware_concurrency());
  const long mib = argc > 3 ? std::max(1L, std::atol(argv[3])) : 256;
  const std::size_t vectors = static_cast<std::size_t>(mib) * 1024 * 1024 / kVectorBytes;
  const Arrays arrays = allocate(vectors, allThreads);
  std::printf("memory bandwidth: STREAM kernels, %ld MiB per array, %d-bit vectors, median of "
              "%d runs (GB/s)\n",
              mib, kVectorBytes * 8, runs);
  std::printf("%-8s %10s %10s\n", "kernel", "1 thread", (std::to_string(allThreads) + " threads").c_str());
  std::string json = "{\"v\":1,\"bench\":\"peak_bandwidth\",\"mib_per_array\":" +
                     std::to_string(mib) + ",\"runs\":" + std::to_string(runs) +
                     ",\"threads\":" + std::to_string(allThreads);
  for (const Kernel& kernel : kernels()) {
    median(kernel, arrays, allThreads, 1); // warm-up: pages mapped, clocks up
    const double single = median(kernel, arrays, 1, runs);
    const double all = median(kernel, arrays, allThreads, runs);
    std::printf("%-8s %10.1f %10.1f\n", kernel.name, single, all);
    char fields[160];
    std::snprintf(fields, sizeof(fields), ",\"%s_single_gbs\":%.1f,\"%s_all_gbs\":%.1f",
                  kernel.name, single, kernel.name, all);
    json += fields;
  }
  std::printf("%s}\n", json.c_str());
  for (Vector* array : {arrays.a, arrays.b, arrays.c})
    std::free(array);
  return 0;
}
