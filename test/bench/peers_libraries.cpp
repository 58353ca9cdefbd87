// The peer libraries of bench-peers (see peers_libraries.h): Eigen (through peers_eigen.h),
// OpenBLAS and oneDNN, each wrapped as a Timer.
#include "peers_libraries.h"

#include "measure/Timing.h"
#include "peers_eigen.h"

#include <algorithm>
#include <cblas.h>
#include <dnnl.hpp>
#include <memory>
#include <omp.h>
#include <random>
#include <unordered_map>

extern "C" void openblas_set_num_threads(int threads);

namespace clustune::bench {
namespace {} // namespace

// One repeat as clustune's worker times it: at least 100 ms of runs, mean seconds per run.
double oneRepeat(const std::function<void()>& run) {
  return measure::timeRuns(run, {.number = 1, .repeat = 1, .minRepeatMs = 100})[0];
}

namespace {

std::vector<float> randomFloats(std::size_t count, unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> values(count);
  for (float& value : values)
    value = uniform(generator);
  return values;
}

struct GemmBuffers {
  std::vector<float> a, b, out;
  GemmBuffers(const Case& c)
      : a(randomFloats(c.m * c.k, 1)), b(randomFloats(c.k * c.n, 2)), out(c.m * c.n) {}
};

} // namespace

Timer eigenGemm(const Case& c, int threads) {
  auto buffers = std::make_shared<GemmBuffers>(c);
  return [=] {
    return eigenGemmSeconds(buffers->a.data(), buffers->b.data(), buffers->out.data(), c.m, c.n,
                            c.k, threads, oneRepeat);
  };
}

Timer openblasGemm(const Case& c, int threads) {
  auto buffers = std::make_shared<GemmBuffers>(c);
  return [=] {
    openblas_set_num_threads(threads);
    const int m = static_cast<int>(c.m), n = static_cast<int>(c.n), k = static_cast<int>(c.k);
    return oneRepeat([&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, buffers->a.data(), k,
                  buffers->b.data(), n, 0.0f, buffers->out.data(), n);
    });
  };
}

namespace {

struct OnednnPrimitive {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::primitive primitive;
  std::unordered_map<int, dnnl::memory> arguments;
};

Timer timeOnednn(std::shared_ptr<OnednnPrimitive> state, int threads) {
  return [=] {
    omp_set_num_threads(threads);
    return oneRepeat([&] {
      state->primitive.execute(state->stream, state->arguments);
      state->stream.wait();
    });
  };
}

void fillRandom(dnnl::memory& memory, unsigned seed) {
  const std::size_t count = memory.get_desc().get_size() / sizeof(float);
  const std::vector<float> values = randomFloats(count, seed);
  std::copy(values.begin(), values.end(), static_cast<float*>(memory.get_data_handle()));
}

} // namespace

Timer onednnMatmul(const Case& c, int threads) {
  omp_set_num_threads(threads); // oneDNN plans a primitive for the thread count it sees now
  using tag = dnnl::memory::format_tag;
  using dt = dnnl::memory::data_type;
  auto state = std::make_shared<OnednnPrimitive>();
  const dnnl::memory::desc aDesc({c.m, c.k}, dt::f32, tag::ab), bDesc({c.k, c.n}, dt::f32, tag::ab),
      cDesc({c.m, c.n}, dt::f32, tag::ab);
  const dnnl::matmul::primitive_desc descriptor(dnnl::matmul::desc(aDesc, bDesc, cDesc),
                                                state->engine);
  dnnl::memory a(aDesc, state->engine), b(bDesc, state->engine), out(cDesc, state->engine);
  fillRandom(a, 1);
  fillRandom(b, 2);
  state->primitive = dnnl::matmul(descriptor);
  state->arguments = {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, out}};
  return timeOnednn(state, threads);
}

// The task's convolution with its epilogue as post-ops; `blocked` lets oneDNN choose the tensor
// layouts (format_tag::any) and leaves the reorders out of the timing.
Timer onednnConv(const Case& c, bool blocked, int threads) {
  omp_set_num_threads(threads); // oneDNN plans a primitive for the thread count it sees now
  using tag = dnnl::memory::format_tag;
  using dt = dnnl::memory::data_type;
  const ConvShape& s = c.conv;
  auto state = std::make_shared<OnednnPrimitive>();
  const dnnl::memory::dims src{1, s.channels, s.height, s.width},
      weights{s.filters, s.channels, s.kernel, s.kernel}, bias{s.filters},
      dst{1, s.filters, s.outHeight, s.outWidth};
  const auto choose = [&](const dnnl::memory::dims& dims, tag plain) {
    return dnnl::memory::desc(dims, dt::f32, blocked ? tag::any : plain);
  };
  const auto biasDesc = dnnl::memory::desc(bias, dt::f32, tag::x);
  dnnl::post_ops postOps;
  if (s.residual)
    postOps.append_sum(1.0f);
  if (s.relu)
    postOps.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
  dnnl::primitive_attr attributes;
  attributes.set_post_ops(postOps);
  const dnnl::convolution_forward::desc description(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
      choose(src, tag::nchw), choose(weights, tag::oihw), biasDesc, choose(dst, tag::nchw),
      {s.stride, s.stride}, {s.pad, s.pad}, {s.pad, s.pad});
  const dnnl::convolution_forward::primitive_desc descriptor(description, attributes,
                                                             state->engine);
  dnnl::memory srcMemory(descriptor.src_desc(), state->engine),
      weightsMemory(descriptor.weights_desc(), state->engine), biasMemory(biasDesc, state->engine),
      dstMemory(descriptor.dst_desc(), state->engine);
  fillRandom(srcMemory, 1);
  fillRandom(weightsMemory, 2);
  fillRandom(biasMemory, 3);
  fillRandom(dstMemory, 4);
  state->primitive = dnnl::convolution_forward(descriptor);
  state->arguments = {{DNNL_ARG_SRC, srcMemory},
                      {DNNL_ARG_WEIGHTS, weightsMemory},
                      {DNNL_ARG_BIAS, biasMemory},
                      {DNNL_ARG_DST, dstMemory}};
  return timeOnednn(state, threads);
}

} // namespace clustune::bench
