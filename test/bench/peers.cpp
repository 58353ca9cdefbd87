// clustune's CPU kernels against peer libraries, in one run and at one thread count: GEMM 512³
// and 1024³ and resnet50's convolutions (batch 1, NCHW, fp32), in GFLOP/s. For each case:
//   clustune-sampled: the best of N schedules from search::sample, measured by measure::Measurer
//                     (each in the isolated worker, outputs checked); the best three of a quick
//                     screening are timed again like everything else;
//   clustune-hand:    a schedule written by hand for the case (handSchedule below, printed as
//                     JSON), measured the same way;
//   eigen, openblas:  Eigen 3.4 (-O3 -march=native) and cblas_sgemm, for GEMMs and 1x1 convs
//                     (which are GEMMs in NCHW: W[K, C] × X[C, H·W]; the epilogue is not counted);
//   onednn:           dnnl::matmul for GEMMs, dnnl::convolution_forward with the task's bias,
//                     residual sum and ReLU as post-ops, both on plain NCHW tensors
//                     (onednn-nchw) and on the layouts oneDNN prefers (onednn-blocked, reorders
//                     not timed).
// The implementations of a case are timed in interleaved rounds (a warm-up round, then
// `--repeat` rounds, each timing every implementation once for at least 100 ms, the rule of
// measure::timeRuns), so that they share the noise of a machine that other work also uses; a
// figure is the median over the rounds. Output: one JSON line per figure and a table, on
// stdout. --explore compares schedules by thread CPU time instead (see explore()). Run it
// through test/bench/peers.sh, which builds it and makes the resnet50 tasks.
#include "codegen/cpu/CpuCodegen.h"
#include "codegen/cpu/CpuTarget.h"
#include "codegen/cpu/JitLoader.h"
#include "graph/Task.h"
#include "measure/Measurer.h"
#include "measure/Timing.h"
#include "peers_eigen.h"
#include "runtime/ThreadPool.h"
#include "schedule/Lower.h"
#include "schedule/State.h"
#include "search/Sample.h"
#include "support/Error.h"
#include "support/Jsonl.h"
#include "support/Statistics.h"
#include "te/LowerTask.h"

#include <algorithm>
#include <cblas.h>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <dnnl.hpp>
#include <fstream>
#include <functional>
#include <map>
#include <omp.h>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <sys/mman.h>
#include <thread>
#include <time.h>
#include <vector>

extern "C" void openblas_set_num_threads(int threads);

using namespace clustune;
using schedule::Annotation;
using schedule::Step;

namespace {

struct ConvShape {
  std::int64_t channels = 0, filters = 0, height = 0, width = 0, kernel = 1, stride = 1, pad = 0;
  std::int64_t outHeight = 0, outWidth = 0;
  bool bias = false, residual = false, relu = false;
};

struct Case {
  std::string name;
  graph::Task task;
  double flops = 0;
  bool isConv = false;
  std::int64_t m = 0, n = 0, k = 0; // the GEMM (for a conv: the 1x1 conv as a GEMM)
  ConvShape conv;
};

struct Options {
  std::vector<int> threads = {2}; // sampling uses the first
  int samples = 1000;
  int repeat = 5;
  std::uint64_t seed = 1;
  std::string tasksPath;
  std::vector<std::string> only; // case names; empty = all
  std::vector<std::string> skip; // "sampled", "hand", "eigen", "openblas", "onednn"
  std::map<std::string, std::string> handOverrides; // case -> JSON steps file
  // Extra schedules timed as "clustune-<name>" for the selected cases (for finding hand-picked
  // schedules side by side): name -> JSON steps file.
  std::vector<std::pair<std::string, std::string>> variants;
  std::string dumpDir;
  bool listOnly = false;
  bool explore = false;
  bool hugePages = false; // --explore: buffers on 2 MiB pages (madvise), to see TLB effects
};

graph::TaskNode node(const std::string& op, std::vector<graph::TaskValueRef> inputs,
                     graph::Shape shape, graph::PatternKind pattern) {
  return graph::TaskNode{.op = op,
                         .attributes = {},
                         .inputs = std::move(inputs),
                         .outputShapes = {std::move(shape)},
                         .outputTypes = {graph::DataType::Float32},
                         .pattern = pattern};
}

// Y = MatMul(A[n, n], B[n, n]), as the partitioner makes it from an ONNX MatMul.
Case gemmCase(std::int64_t n) {
  Case gemm{.name = "gemm" + std::to_string(n), .task = {}, .m = n, .n = n, .k = n, .conv = {}};
  gemm.task.inputs = {{.shape = {n, n}}, {.shape = {n, n}, .kind = graph::TaskInput::Kind::Weight}};
  gemm.task.nodes = {node("MatMul", {graph::TaskValueRef::input(0), graph::TaskValueRef::input(1)},
                          {n, n}, graph::PatternKind::OutEWiseFusable)};
  gemm.task.outputs = {graph::TaskValueRef::node(0, 0)};
  gemm.task.weights = {{"bench", 1}};
  graph::canonicalizeTask(gemm.task);
  gemm.flops = 2.0 * n * n * n;
  return gemm;
}

std::int64_t intsAttribute(const graph::TaskNode& conv, const char* name, std::size_t index,
                           std::int64_t otherwise) {
  const auto found = conv.attributes.find(name);
  if (found == conv.attributes.end())
    return otherwise;
  if (const auto* scalar = std::get_if<std::int64_t>(&found->second))
    return *scalar;
  const auto& values = std::get<std::vector<std::int64_t>>(found->second);
  return index < values.size() ? values[index] : otherwise;
}

// The resnet50 Conv tasks of a tasks.jsonl: the 3x3 and 1x1 convolutions with square kernels,
// stride and padding, one case per distinct key.
std::vector<Case> convCases(const std::string& path) {
  std::vector<Case> cases;
  JsonlReader reader(path);
  nlohmann::json entry;
  while (reader.next(entry)) {
    graph::Task task = graph::taskFromJson(entry, reader.context());
    if (task.anchor != "Conv")
      continue;
    const graph::TaskNode& conv = task.nodes.front();
    if (conv.op != "Conv" || intsAttribute(conv, "group", 0, 1) != 1)
      continue;
    const graph::Shape& x = task.inputs[conv.inputs[0].index].shape;
    const graph::Shape& w = task.inputs[conv.inputs[1].index].shape;
    const graph::Shape& y = conv.outputShapes.front();
    ConvShape shape{.channels = x[1],
                    .filters = w[0],
                    .height = x[2],
                    .width = x[3],
                    .kernel = w[2],
                    .stride = intsAttribute(conv, "strides", 0, 1),
                    .pad = intsAttribute(conv, "pads", 0, 0),
                    .outHeight = y[2],
                    .outWidth = y[3]};
    if (x[0] != 1 || w[2] != w[3] || (shape.kernel != 1 && shape.kernel != 3))
      continue;
    shape.bias = conv.inputs.size() > 2 && conv.inputs[2].kind == graph::TaskValueRef::Kind::Input;
    for (const graph::TaskNode& other : task.nodes) {
      shape.relu |= other.op == "Relu";
      shape.residual |= other.op == "Add";
    }
    Case c{.name = "conv" + std::to_string(shape.kernel) + "x" + std::to_string(shape.kernel) +
                   "_c" + std::to_string(shape.channels) + "_k" + std::to_string(shape.filters) +
                   "_" + std::to_string(shape.height) +
                   (shape.stride > 1 ? "_s" + std::to_string(shape.stride) : "") +
                   (shape.residual ? "_add" : "") + (shape.relu ? "_relu" : ""),
           .task = std::move(task),
           .isConv = true,
           .m = shape.filters,
           .n = shape.outHeight * shape.outWidth,
           .k = shape.channels * shape.kernel * shape.kernel,
           .conv = shape};
    c.flops = 2.0 * c.m * c.n * c.k;
    cases.push_back(std::move(c));
  }
  return cases;
}

// ---------------------------------------------------------------------------------------------
// Hand-picked schedules, built from the stage's loop structure so that one recipe serves every
// case of a kind. The steps are printed as JSON with the results.

int stageOfAnchor(const schedule::State& state) {
  for (std::size_t i = 0; i < state.stages().size(); ++i)
    if (state.stages()[i].tensor->isReduction())
      return static_cast<int>(i);
  throw Error("no reduction stage");
}

class StepList {
public:
  explicit StepList(const te::Workload& workload)
      : workload_(workload), state_(schedule::initialState(workload)) {}
  void push(const Step& step) {
    state_ = schedule::applyStep(std::move(state_), step);
    steps_.push_back(step);
  }
  const schedule::State& state() const { return state_; }
  const std::vector<Step>& steps() const { return steps_; }

private:
  const te::Workload& workload_;
  schedule::State state_;
  std::vector<Step> steps_;
};

// GEMM C[i, j] = Σ_k A[i, k] B[k, j], loops i, j, k. A register tile of `rows` × `columns`
// (columns vectorized, rows unrolled) accumulates over a k block of `kBlock`; the outer loops
// are i-blocks (parallel), k-blocks, j-tiles, i-tiles inside the block.
std::vector<Step> handGemm(const te::Workload& workload, std::int64_t m, std::int64_t n,
                           std::int64_t k, int threads) {
  StepList list(workload);
  const int stage = stageOfAnchor(list.state());
  const std::int64_t rows = 8, columns = 32, kBlock = std::min<std::int64_t>(k, 256);
  const std::int64_t rowBlock = std::min<std::int64_t>(m / threads, 64);
  // i -> i0 i1 i2, j -> j0 j1 (vector), k -> k0 k1
  list.push(schedule::SplitStep{.stage = stage, .iterator = 0, .factors = {rowBlock / rows, rows}});
  list.push(schedule::SplitStep{.stage = stage, .iterator = 3, .factors = {columns}});
  list.push(schedule::SplitStep{.stage = stage, .iterator = 5, .factors = {kBlock}});
  // loops now: i0 i1 i2 j0 j1 k0 k1 -> i0 k0 j0 i1 k1 i2 j1
  list.push(schedule::ReorderStep{.stage = stage, .order = {0, 5, 3, 1, 6, 2, 4}});
  list.push(
      schedule::AnnotationStep{.stage = stage, .iterator = 0, .annotation = Annotation::Parallel});
  list.push(
      schedule::AnnotationStep{.stage = stage, .iterator = 5, .annotation = Annotation::Unroll});
  list.push(
      schedule::AnnotationStep{.stage = stage, .iterator = 6, .annotation = Annotation::Vectorize});
  (void)n;
  return list.steps();
}

// The vector length for `extent` contiguous outputs: 32 or 16 when they divide it, the whole
// extent up to 64, else its largest divisor up to 32 (56 -> 28). Code generation runs a
// length above 16 as 16-lane vectors plus one shorter vector.
std::int64_t vectorLength(std::int64_t extent) {
  if (extent % 32 == 0)
    return 32;
  if (extent % 16 == 0)
    return 16;
  if (extent <= 64)
    return extent;
  for (std::int64_t lanes = 32; lanes > 1; --lanes)
    if (extent % lanes == 0)
      return lanes;
  return 1;
}

// Convolution + epilogue (bias, residual add, ReLU) in NCHW, after Ansor's tiling with fusion.
// The element-wise stages are inlined into the output stage, which is tiled over (output
// channels × positions) and parallel over the tiles; the convolution is computed per tile
// (compute_at) into a local buffer with a register tile of `channelTile` output channels
// (unrolled) × `lanes` positions (vectorized) below its reduce loops, so that each input
// vector load feeds channelTile FMAs. The positions are:
//   - 1x1, stride 1, no padding: the fused (row, column) axis, contiguous in input and output,
//     so the convolution is a GEMM W[K, C] · X[C, H·W];
//   - otherwise: one output row segment; the padding stage is computed per tile (compute_at),
//     which packs the tile's input rows with their zero border, so the inner loop loads plain
//     vectors instead of testing the border per lane.
std::vector<Step> handConv(const te::Workload& workload, const ConvShape& s, int threads) {
  StepList list(workload);
  const int conv = stageOfAnchor(list.state());
  const int output = static_cast<int>(list.state().stages().size()) - 1;
  const bool hasPad = conv > 0; // the padding stage comes first when there is one
  for (int stage = hasPad ? 1 : 0; stage < output; ++stage)
    if (stage != conv)
      list.push(schedule::ComputeInlineStep{.stage = stage});
  const bool gemm = !hasPad && s.kernel == 1 && s.stride == 1;
  const std::int64_t positions = gemm ? s.outHeight * s.outWidth : s.outWidth;
  const std::int64_t lanes = vectorLength(positions);
  const std::int64_t channelTile = std::min<std::int64_t>(16 / ((lanes + 15) / 16), s.filters);
  const std::int64_t channelBlock = std::min<std::int64_t>(s.filters, 64);

  // Output stage: n c h w, or n c p after fusing h and w.
  if (gemm)
    list.push(schedule::FuseStep{.stage = output, .iterators = {2, 3}});
  list.push(schedule::SplitStep{.stage = output, .iterator = 1, .factors = {channelBlock}});
  std::int64_t block = 1; // positions (gemm) or rows per tile
  if (gemm) {
    // The largest multiple of lanes dividing the positions whose tile fits a 64 KiB buffer.
    for (std::int64_t candidate = lanes; candidate <= positions; candidate += lanes)
      if (positions % candidate == 0 && channelBlock * candidate * 4 <= 64 * 1024 &&
          (s.filters / channelBlock) * (positions / candidate) >= 2 * threads)
        block = candidate;
    if (block == 1)
      block = lanes;
  } else {
    for (std::int64_t rows : {7, 4, 2, 1})
      if (s.outHeight % rows == 0 &&
          (s.filters / channelBlock) * (s.outHeight / rows) >= 2 * threads) {
        block = rows;
        break;
      }
  }
  // n c0 c1 h0 h1 w -> n c0 h0 c1 h1 w, or n c0 c1 p0 p1 -> n c0 p0 c1 p1
  list.push(schedule::SplitStep{.stage = output, .iterator = 3, .factors = {block}});
  list.push(schedule::ReorderStep{.stage = output,
                                  .order = gemm ? std::vector<int>{0, 1, 3, 2, 4}
                                                : std::vector<int>{0, 1, 3, 2, 4, 5}});
  list.push(schedule::FuseStep{.stage = output, .iterators = {0, 1, 2}});
  list.push(
      schedule::AnnotationStep{.stage = output, .iterator = 0, .annotation = Annotation::Parallel});
  int last = static_cast<int>(list.state().stages()[output].loops.size()) - 1;
  if (list.state().stages()[output].loop(last).extent > lanes) {
    list.push(schedule::SplitStep{.stage = output, .iterator = last, .factors = {lanes}});
    ++last;
  }
  list.push(schedule::AnnotationStep{
      .stage = output, .iterator = last, .annotation = Annotation::Vectorize});
  list.push(schedule::ComputeAtStep{.stage = conv, .targetStage = output, .targetIterator = 0});

  // Convolution: n c h w r..., or n c p r... after fusing h and w.
  if (gemm)
    list.push(schedule::FuseStep{.stage = conv, .iterators = {2, 3}});
  const int spatial = gemm ? 3 : 4;
  const int reduceLoops = static_cast<int>(list.state().stages()[conv].loops.size()) - spatial;
  list.push(schedule::SplitStep{.stage = conv, .iterator = 1, .factors = {channelTile}});
  // n c0 c1 [h] x0 x1 r... -> n c0 [h] x0 r... c1 x1, where x is p or w
  const int positionLoop = spatial; // after the channel split
  list.push(schedule::SplitStep{.stage = conv, .iterator = positionLoop, .factors = {lanes}});
  std::vector<int> order{0, 1};
  if (!gemm)
    order.push_back(3);
  order.push_back(positionLoop);
  for (int r = 0; r < reduceLoops; ++r)
    order.push_back(positionLoop + 2 + r);
  order.push_back(2);
  order.push_back(positionLoop + 1);
  list.push(schedule::ReorderStep{.stage = conv, .order = order});
  const int convLoops = static_cast<int>(list.state().stages()[conv].loops.size());
  list.push(schedule::AnnotationStep{
      .stage = conv, .iterator = convLoops - 2, .annotation = Annotation::Unroll});
  list.push(schedule::AnnotationStep{
      .stage = conv, .iterator = convLoops - 1, .annotation = Annotation::Vectorize});
  if (hasPad) {
    list.push(schedule::ComputeAtStep{.stage = 0, .targetStage = conv, .targetIterator = 0});
    // Packing runs once per tile for every input channel: vectorized along the rows, it stays
    // small next to the convolution even for 14x14 and 7x7 layers.
    const int padLoops = static_cast<int>(list.state().stages()[0].loops.size());
    list.push(schedule::AnnotationStep{
        .stage = 0, .iterator = padLoops - 1, .annotation = Annotation::Vectorize});
  }
  return list.steps();
}

std::vector<Step> handSchedule(const Case& c, int threads) {
  const te::Workload workload = te::lowerTask(c.task);
  if (!c.isConv)
    return handGemm(workload, c.m, c.n, c.k, threads);
  return handConv(workload, c.conv, threads);
}

// ---------------------------------------------------------------------------------------------
// Peers. Each returns a Timer: one call times one repeat (warm-up included on the first), so
// that the implementations of a case can be timed in interleaved rounds and share the noise of
// a machine that other work also uses.

using Timer = std::function<double()>;

// One repeat as clustune's worker times it: at least 100 ms of runs, mean seconds per run.
double oneRepeat(const std::function<void()>& run) {
  return measure::timeRuns(run, {.number = 1, .repeat = 1, .minRepeatMs = 100})[0];
}

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

// ---------------------------------------------------------------------------------------------
// clustune

measure::MeasureOptions measureOptions(int threads, std::uint64_t seed,
                                       measure::TimingOptions timing) {
  measure::MeasureOptions measureOptions;
  measureOptions.runner.timing = timing;
  measureOptions.runner.threads = threads;
  measureOptions.runner.timeoutSeconds = 20;
  measureOptions.runner.seed = seed;
  measureOptions.buildParallelism = 2;
  return measureOptions;
}

codegen::CpuTarget benchTarget(int threads) {
  codegen::CpuTarget target = codegen::hostCpuTarget();
  target.cores = threads;
  return target;
}

// A clustune schedule as a Timer: built once and checked against the reference once (an error
// is returned instead), then each call is one repeat in the isolated worker.
struct ClustuneKernel {
  std::string error;
  Timer timer;
};

ClustuneKernel clustuneKernel(const Case& c, const std::vector<Step>& steps, int threads,
                              std::uint64_t seed) {
  const codegen::CpuTarget target = benchTarget(threads);
  auto measurer = std::make_shared<measure::Measurer>(
      target, measureOptions(threads, seed, {.number = 1, .repeat = 1, .minRepeatMs = 100}));
  auto built = std::make_shared<measure::BuildResult>(
      measure::buildCandidate(measure::MeasureInput{c.task, steps}, target));
  const measure::MeasureResult checked = measurer->measureBuilt(c.task, *built);
  if (!checked.ok())
    return {checked.error + ": " + checked.errorDetail, {}};
  return {"", [measurer, built] {
            const measure::RunOutcome outcome = measurer->runner().run(*built, false);
            return outcome.ok() ? outcome.costs[0] : 0.0;
          }};
}

struct SampledBest {
  std::vector<Step> steps;
  int valid = 0, measured = 0;
};

// Screens every sample with one short run each (in the worker, outputs checked); the three
// fastest are timed again (three repeats of 100 ms) and the fastest of those wins.
SampledBest bestSampled(const Case& c, const Options& options, int threads) {
  const codegen::CpuTarget target = benchTarget(threads);
  const auto candidates =
      search::sample(c.task, options.samples, options.seed,
                     {.cores = threads, .vectorLanes = target.vectorBits / 32, .maxAttempts = 0});
  measure::Measurer screening(
      target, measureOptions(threads, options.seed, {.number = 1, .repeat = 1, .minRepeatMs = 0}));
  std::vector<std::pair<double, std::size_t>> ranked;
  const std::size_t batch = 32;
  SampledBest best;
  for (std::size_t first = 0; first < candidates.size(); first += batch) {
    std::vector<measure::MeasureInput> inputs;
    for (std::size_t i = first; i < std::min(candidates.size(), first + batch); ++i)
      inputs.push_back({c.task, candidates[i]});
    const auto results = screening.measure(inputs);
    for (std::size_t i = 0; i < results.size(); ++i) {
      ++best.measured;
      if (results[i].ok()) {
        ++best.valid;
        ranked.emplace_back(results[i].meanCost(), first + i);
      }
    }
    std::fprintf(stderr, "\r%s: %zu/%zu samples screened", c.name.c_str(),
                 std::min(candidates.size(), first + batch), candidates.size());
  }
  std::fprintf(stderr, "\n");
  std::sort(ranked.begin(), ranked.end());
  measure::Measurer finalists(
      target,
      measureOptions(threads, options.seed, {.number = 1, .repeat = 3, .minRepeatMs = 100}));
  double bestSeconds = 0;
  for (std::size_t i = 0; i < std::min<std::size_t>(3, ranked.size()); ++i) {
    const auto result = finalists.measure({{c.task, candidates[ranked[i].second]}})[0];
    if (result.ok() && (bestSeconds == 0 || median(result.costs) < bestSeconds)) {
      bestSeconds = median(result.costs);
      best.steps = candidates[ranked[i].second];
    }
  }
  return best;
}

std::vector<Step> readSteps(const std::string& path) {
  std::ifstream file(path);
  if (!file)
    throw Error("cannot read " + path);
  return schedule::stepsFromJson(nlohmann::json::parse(file));
}

void dumpKernel(const Case& c, const std::vector<Step>& steps, const Options& options) {
  const te::Workload workload = te::lowerTask(c.task);
  const schedule::State state = schedule::replay(workload, steps);
  const te::LoweredFunction function = schedule::lower(workload, state, "kernel_" + c.name);
  const codegen::CpuTarget target = benchTarget(options.threads.front());
  const std::string stem = options.dumpDir + "/" + c.name;
  std::ofstream(stem + ".state.txt") << schedule::toString(state);
  std::ofstream(stem + ".stmt.txt") << te::toString(function);
  std::ofstream(stem + ".ll") << codegen::emitLlvmIr(function, target);
  std::ofstream(stem + ".o", std::ios::binary) << codegen::compileToObject(function, target);
  std::ofstream(stem + ".steps.json") << schedule::toJson(steps).dump() << "\n";
}

// ---------------------------------------------------------------------------------------------

// --explore: the hand schedule and the variants of each case, loaded in this process and run on
// one thread; the figure is the least thread CPU time of many short runs. That compares
// schedules on a machine that other work shares (time slices given to others do not count),
// for finding the hand-picked schedules, not for reporting.
void explore(const Case& c, const std::vector<std::pair<std::string, std::vector<Step>>>& schedules,
             const Options& options) {
  runtime::ThreadPool::global().setThreadCount(1);
  const te::Workload workload = te::lowerTask(c.task);
  const codegen::CpuTarget target = benchTarget(1);
  struct Loaded {
    std::string name;
    codegen::LoadedKernel kernel;
    std::vector<double> seconds;
  };
  std::vector<Loaded> kernels;
  for (const auto& [name, steps] : schedules) {
    const te::LoweredFunction function =
        schedule::lower(workload, schedule::replay(workload, steps), "explore_" + name);
    kernels.push_back(
        {name,
         codegen::LoadedKernel(codegen::compileToObject(function, target), function.name),
         {}});
  }
  const auto specs = measure::argumentSpecs(c.task, workload);
  std::vector<te::TensorData> buffers = measure::generateInputs(specs, options.seed);
  for (const measure::ArgumentSpec& spec : specs)
    if (spec.isOutput)
      buffers.emplace_back(spec.dtype, spec.shape);
  std::vector<void*> arguments;
  std::vector<std::shared_ptr<void>> hugeBuffers;
  for (te::TensorData& buffer : buffers) {
    if (!options.hugePages) {
      arguments.push_back(buffer.data());
      continue;
    }
    const std::size_t huge = std::size_t{2} << 20;
    const std::size_t bytes = (buffer.byteSize() + huge - 1) / huge * huge;
    void* memory = std::aligned_alloc(huge, bytes);
    madvise(memory, bytes, MADV_HUGEPAGE);
    std::memcpy(memory, buffer.data(), buffer.byteSize());
    hugeBuffers.emplace_back(memory, std::free);
    arguments.push_back(memory);
  }
  const auto cpuNow = [] {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return now.tv_sec + now.tv_nsec * 1e-9;
  };
  for (int round = 0; round < 10 * options.repeat; ++round)
    for (Loaded& loaded : kernels) {
      loaded.kernel.run(arguments.data());
      const double start = cpuNow();
      loaded.kernel.run(arguments.data());
      loaded.seconds.push_back(cpuNow() - start);
    }
  for (const Loaded& loaded : kernels) {
    if (loaded.seconds.empty()) // --repeat 0: compile (and --dump) only
      continue;
    const double best = *std::min_element(loaded.seconds.begin(), loaded.seconds.end());
    std::printf("%-24s %-20s min %8.1f GFLOP/s  median %8.1f GFLOP/s\n", c.name.c_str(),
                loaded.name.c_str(), c.flops / best * 1e-9,
                c.flops / median(loaded.seconds) * 1e-9);
  }
}

struct Row {
  std::string caseName, implementation;
  int threads = 0;
  double gflops = 0, milliseconds = 0;
  std::string note;
};

// One implementation of a case at one thread count, timed in rounds with the others.
struct Contender {
  std::string implementation;
  std::string note;
  std::optional<nlohmann::ordered_json> schedule;
  Timer timer; // empty when it could not run (the note says why)
  std::vector<double> seconds = {};
};

void report(std::vector<Row>& rows, const Case& c, int threads, const Contender& contender,
            int repeats) {
  const double seconds = contender.seconds.empty() ? 0 : median(contender.seconds);
  Row row{c.name,        contender.implementation,
          threads,       seconds > 0 ? c.flops / seconds * 1e-9 : 0,
          seconds * 1e3, contender.note};
  nlohmann::ordered_json line{{"v", 1},
                              {"bench", "peers"},
                              {"case", c.name},
                              {"impl", contender.implementation},
                              {"threads", threads},
                              {"flops", c.flops},
                              {"seconds", seconds},
                              {"gflops", row.gflops},
                              {"repeats", repeats}};
  if (!contender.note.empty())
    line["note"] = contender.note;
  if (contender.schedule)
    line["schedule"] = *contender.schedule;
  std::printf("%s\n", line.dump().c_str());
  std::fflush(stdout);
  rows.push_back(row);
}

bool wanted(const std::vector<std::string>& list, const std::string& name) {
  return list.empty() || std::find(list.begin(), list.end(), name) != list.end();
}

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, ',');)
    if (!item.empty())
      items.push_back(item);
  return items;
}

Options parseOptions(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        throw Error("missing value after " + argument);
      return argv[++i];
    };
    if (argument == "--threads") {
      options.threads.clear();
      for (const std::string& count : splitList(value()))
        options.threads.push_back(std::max(1, std::stoi(count)));
      if (options.threads.empty())
        throw Error("--threads needs at least one count");
    } else if (argument == "--samples")
      options.samples = std::stoi(value());
    else if (argument == "--repeat")
      options.repeat = std::stoi(value());
    else if (argument == "--seed")
      options.seed = std::stoull(value());
    else if (argument == "--tasks")
      options.tasksPath = value();
    else if (argument == "--cases")
      options.only = splitList(value());
    else if (argument == "--skip")
      options.skip = splitList(value());
    else if (argument == "--hand") {
      const std::string spec = value();
      const auto equals = spec.find('=');
      if (equals == std::string::npos)
        throw Error("--hand takes CASE=steps.json");
      options.handOverrides[spec.substr(0, equals)] = spec.substr(equals + 1);
    } else if (argument == "--variant") {
      const std::string spec = value();
      const auto equals = spec.find('=');
      if (equals == std::string::npos)
        throw Error("--variant takes NAME=steps.json");
      options.variants.emplace_back(spec.substr(0, equals), spec.substr(equals + 1));
    } else if (argument == "--dump")
      options.dumpDir = value();
    else if (argument == "--explore")
      options.explore = true;
    else if (argument == "--huge-pages")
      options.hugePages = true;
    else if (argument == "--list")
      options.listOnly = true;
    else
      throw Error(
          "unknown argument '" + argument +
          "'; usage: bench-peers [--threads T[,T2...]] [--samples N] [--repeat R] [--seed S] "
          "[--tasks tasks.jsonl] [--cases a,b] [--skip sampled,hand,eigen,openblas,"
          "onednn] [--hand CASE=steps.json] [--variant NAME=steps.json] [--dump DIR] [--explore "
          "[--huge-pages]] [--list]");
  }
  return options;
}

} // namespace

int main(int argc, char** argv) try {
  const Options options = parseOptions(argc, argv);
  std::vector<Case> cases{gemmCase(512), gemmCase(1024)};
  // Any other size on request: --cases gemm256
  for (const std::string& name : options.only)
    if (name.rfind("gemm", 0) == 0 && name != "gemm512" && name != "gemm1024")
      cases.push_back(gemmCase(std::stoll(name.substr(4))));
  if (!options.tasksPath.empty())
    for (Case& c : convCases(options.tasksPath))
      cases.push_back(std::move(c));
  if (options.listOnly) {
    for (const Case& c : cases)
      std::printf("%s\n", c.name.c_str());
    return 0;
  }

  const codegen::CpuTarget target = benchTarget(options.threads.front());
  std::fprintf(stderr, "host: %s, %d-bit vectors; threads %d first; %d samples; %d repeats\n",
               target.cpu.c_str(), target.vectorBits, options.threads.front(), options.samples,
               options.repeat);
  std::vector<Row> rows;
  const auto skipped = [&](const char* what) {
    return std::find(options.skip.begin(), options.skip.end(), what) != options.skip.end();
  };
  for (const Case& c : cases) {
    if (!wanted(options.only, c.name))
      continue;
    std::vector<Step> handSteps;
    if (!skipped("hand")) {
      const auto override = options.handOverrides.find(c.name);
      handSteps = override != options.handOverrides.end()
                      ? readSteps(override->second)
                      : handSchedule(c, options.threads.front());
      if (!options.dumpDir.empty())
        dumpKernel(c, handSteps, options);
    }
    if (options.explore) {
      std::vector<std::pair<std::string, std::vector<Step>>> schedules;
      if (!handSteps.empty())
        schedules.emplace_back("hand", handSteps);
      for (const auto& [name, path] : options.variants)
        schedules.emplace_back(name, readSteps(path));
      explore(c, schedules, options);
      continue;
    }
    std::optional<SampledBest> sampled;
    if (!skipped("sampled") && options.samples > 0)
      sampled = bestSampled(c, options, options.threads.front());

    for (const int threads : options.threads) {
      std::vector<Contender> contenders;
      const auto addClustune = [&](const std::string& implementation,
                                   const std::vector<Step>& steps, std::string note) {
        ClustuneKernel kernel = clustuneKernel(c, steps, threads, options.seed);
        if (!kernel.error.empty())
          note = kernel.error;
        contenders.push_back({implementation, note, schedule::toJson(steps), kernel.timer});
      };
      if (!skipped("hand"))
        addClustune("clustune-hand", handSteps, "");
      for (const auto& [name, path] : options.variants)
        addClustune("clustune-" + name, readSteps(path), "");
      if (sampled)
        addClustune("clustune-sampled", sampled->steps,
                    "best of " + std::to_string(sampled->valid) + " valid of " +
                        std::to_string(sampled->measured) + " samples");
      const bool gemmLike = !c.isConv || (c.conv.kernel == 1 && c.conv.stride == 1);
      const std::string gemmNote = c.isConv ? "the GEMM only" : "";
      if (gemmLike && !skipped("eigen"))
        contenders.push_back({"eigen", gemmNote, std::nullopt, eigenGemm(c, threads)});
      if (gemmLike && !skipped("openblas"))
        contenders.push_back({"openblas", gemmNote, std::nullopt, openblasGemm(c, threads)});
      if (!skipped("onednn")) {
        if (c.isConv) {
          contenders.push_back({"onednn-nchw", "", std::nullopt, onednnConv(c, false, threads)});
          contenders.push_back({"onednn-blocked", "oneDNN's layouts, reorders not timed",
                                std::nullopt, onednnConv(c, true, threads)});
        } else {
          contenders.push_back({"onednn", "", std::nullopt, onednnMatmul(c, threads)});
        }
      }
      // A warm-up round, then `repeat` rounds; each round times every contender once. The
      // pause lets the previous library's worker threads stop spinning (libgomp spins for a
      // while after a parallel region, OpenBLAS's threads for about 2^28 cycles) before the
      // next contender needs the cores.
      for (int round = 0; round <= options.repeat; ++round)
        for (Contender& contender : contenders)
          if (contender.timer) {
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            const double seconds = contender.timer();
            if (round > 0 && seconds > 0)
              contender.seconds.push_back(seconds);
          }
      for (const Contender& contender : contenders)
        report(rows, c, threads, contender, options.repeat);
    }
  }

  std::printf("\n%-32s %-18s %7s %9s %9s  %s\n", "case", "implementation", "threads", "GFLOP/s",
              "ms", "note");
  for (const Row& row : rows)
    std::printf("%-32s %-18s %7d %9.1f %9.3f  %s\n", row.caseName.c_str(),
                row.implementation.c_str(), row.threads, row.gflops, row.milliseconds,
                row.note.c_str());
  return 0;
} catch (const std::exception& error) {
  std::fprintf(stderr, "error: %s\n", error.what());
  return 1;
}
