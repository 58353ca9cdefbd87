// Orientation numbers for the x86 code generator: compile time per kernel (lowered function to
// loaded, callable code: emission, O3, object code, JIT link) and the speed of a register-tiled
// matmul (a 4x16 accumulator tile: rows unrolled, columns vectorized, rows parallel) at 64^3
// and 512^3, on 1 thread and on the whole pool. Timings are medians; nothing here passes or
// fails. Usage: bench-cpu-codegen [repeats]
#include "BenchSupport.h"
#include "codegen/cpu/CpuCodegen.h"
#include "codegen/cpu/JitLoader.h"
#include "runtime/ThreadPool.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

using namespace clustune;
using namespace clustune::te;
using Clock = std::chrono::steady_clock;

namespace {

Expr v(const Var& var) {
  return varExpr(var);
}
Expr c(std::int64_t value) {
  return intImm(value);
}

Buffer argument(const std::string& name, std::int64_t elements) {
  return makeBuffer(name, DataType::Float32, elements, BufferScope::Argument);
}

LoweredFunction tiledMatmul(std::int64_t n) {
  const Buffer a = argument("A", n * n), b = argument("B", n * n), out = argument("C", n * n);
  const Buffer accumulator = makeBuffer("acc", DataType::Float32, 64, BufferScope::Local);
  const Var io = makeVar("io"), jo = makeVar("jo"), k = makeVar("k");
  const auto tile = [&](const std::function<Stmt(const Expr& ii, const Expr& ji)>& body) {
    const Var ii = makeVar("ii"), ji = makeVar("ji");
    return makeFor(ii, 4, ForKind::Unrolled,
                   makeFor(ji, 16, ForKind::Vectorized, body(v(ii), v(ji))));
  };
  const auto row = [&](const Expr& ii) { return v(io) * c(4) + ii; };
  const auto column = [&](const Expr& ji) { return v(jo) * c(16) + ji; };
  const auto tileIndex = [](const Expr& ii, const Expr& ji) { return ii * c(16) + ji; };
  const Stmt zero = tile([&](const Expr& ii, const Expr& ji) {
    return makeStore(accumulator, tileIndex(ii, ji), floatImm(0.0));
  });
  const Stmt update = makeFor(k, n, ForKind::Serial, tile([&](const Expr& ii, const Expr& ji) {
                                return makeStore(accumulator, tileIndex(ii, ji),
                                                 bufferLoad(accumulator, tileIndex(ii, ji)) +
                                                     bufferLoad(a, row(ii) * c(n) + v(k)) *
                                                         bufferLoad(b, v(k) * c(n) + column(ji)));
                              }));
  const Stmt copyOut = tile([&](const Expr& ii, const Expr& ji) {
    return makeStore(out, row(ii) * c(n) + column(ji), bufferLoad(accumulator, tileIndex(ii, ji)));
  });
  return {"matmul" + std::to_string(n),
          {a, b, out},
          makeFor(io, n / 4, ForKind::Parallel,
                  makeAllocate(accumulator, makeFor(jo, n / 16, ForKind::Serial,
                                                    makeSequence({zero, update, copyOut}))))};
}

LoweredFunction gelu(std::int64_t n) {
  const Buffer a = argument("A", n), out = argument("C", n);
  const Var io = makeVar("io"), ii = makeVar("ii");
  const Expr i = v(io) * c(16) + v(ii);
  const Expr x = bufferLoad(a, i);
  return {"gelu",
          {a, out},
          makeFor(io, n / 16, ForKind::Parallel,
                  makeFor(ii, 16, ForKind::Vectorized,
                          makeStore(out, i,
                                    x * floatImm(0.5) *
                                        (floatImm(1.0) +
                                         call(CallFunction::Erf, {x * floatImm(0.70710678)})))))};
}

double secondsOf(const std::function<void()>& work) {
  const auto start = Clock::now();
  work();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void benchmarkMatmul(std::int64_t n, int repeats) {
  const codegen::CpuTarget host = codegen::hostCpuTarget();
  const LoweredFunction function = tiledMatmul(n);
  const codegen::LoadedKernel kernel(codegen::compileToObject(function, host), function.name);
  std::vector<float> a(n * n), b(n * n), out(n * n);
  for (std::int64_t i = 0; i < n * n; ++i) {
    a[i] = static_cast<float>((i * 7 % 13) - 6) / 8.0f;
    b[i] = static_cast<float>((i * 5 % 11) - 5) / 8.0f;
  }
  std::vector<void*> arguments{a.data(), b.data(), out.data()};
  auto& pool = runtime::ThreadPool::global();
  const int poolThreads = pool.threadCount();
  for (int threads : {1, poolThreads}) {
    pool.setThreadCount(threads);
    kernel.run(arguments.data()); // warm-up
    // Enough runs per sample for ~10 ms, so that timer resolution does not matter.
    const double once = secondsOf([&] { kernel.run(arguments.data()); });
    const int runs = std::max(1, static_cast<int>(0.01 / std::max(once, 1e-9)));
    std::vector<double> samples;
    for (int r = 0; r < repeats; ++r)
      samples.push_back(secondsOf([&] {
                          for (int i = 0; i < runs; ++i)
                            kernel.run(arguments.data());
                        }) /
                        runs);
    const double seconds = bench::median(samples);
    std::printf("matmul %lld^3, %d thread(s): %.3f ms, %.1f GFLOP/s\n", static_cast<long long>(n),
                threads, seconds * 1e3, 2.0 * n * n * n / seconds * 1e-9);
    if (threads == poolThreads)
      break;
  }
  pool.setThreadCount(poolThreads);
}

} // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  const codegen::CpuTarget host = codegen::hostCpuTarget();
  std::printf("host: %s, %s, %d-bit vectors, %d cores\n", host.triple.c_str(), host.cpu.c_str(),
              host.vectorBits, host.cores);

  const std::vector<LoweredFunction> kernels{tiledMatmul(64), tiledMatmul(512), gelu(4096)};
  codegen::compileToObject(kernels[0], host); // first use initialises LLVM
  for (const LoweredFunction& function : kernels) {
    std::vector<double> compile, load;
    for (int r = 0; r < repeats; ++r) {
      std::string object;
      compile.push_back(secondsOf([&] { object = codegen::compileToObject(function, host); }));
      load.push_back(secondsOf([&] { codegen::LoadedKernel(object, function.name); }));
    }
    std::printf("%-10s compile %.1f ms, JIT load %.2f ms (medians of %d)\n", function.name.c_str(),
                bench::median(compile) * 1e3, bench::median(load) * 1e3, repeats);
  }
  benchmarkMatmul(64, repeats);
  benchmarkMatmul(512, repeats);
  return 0;
}
