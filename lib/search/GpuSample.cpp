// See GpuSample.h. Steps are applied as they are drawn, so that each one reads the loop
// positions the earlier ones left.
#include "search/GpuSample.h"

#include "schedule/ExprUtil.h"
#include "schedule/Lower.h"
#include "schedule/State.h"
#include "search/RandomAnnotation.h"
#include "support/Error.h"
#include "support/Random.h"

#include <algorithm>
#include <map>
#include <set>

namespace clustune::search {
namespace {

using schedule::Annotation;
using schedule::State;
using schedule::Step;

constexpr int kSpatialLevels = 5, kReduceLevels = 3;
constexpr std::int64_t kWarpSize = 32;

class GpuSampler {
public:
  GpuSampler(const te::Workload& workload, const GpuSampleOptions& options, Rng& rng)
      : options_(options), rng_(rng), state_(schedule::initialState(workload)) {}

  std::vector<Step> run() {
    // Which reductions reduce across threads, and which of the others read their operands
    // through shared memory (Ansor's cache_read into "shared" for stages with data reuse):
    // coin flips, drawn before any step.
    std::vector<std::string> sharedReaders;
    for (const schedule::Stage& stage : state_.stages()) {
      if (stage.location.kind != schedule::ComputeLocationKind::Root ||
          !stage.tensor->isReduction())
        continue;
      if (suitsCrossThreadReduction(stage) &&
          (stage.spatialAxisCount() == 0 || rng_.uniformInt(std::uint64_t{2}) == 1))
        crossThread_.insert(stage.tensor->name);
      else if (stage.spatialAxisCount() > 0 && rng_.uniformInt(std::uint64_t{2}) == 1)
        sharedReaders.push_back(stage.tensor->name);
    }
    const schedule::State initial = state_;
    try {
      return build(sharedReaders);
    } catch (const schedule::InvalidScheduleError&) {
      // A copy another stage reads too (a layer norm's mean and variance both read their
      // input, which inlining folds into both) cannot be computed at one of them: this draw
      // goes without shared memory.
      state_ = initial;
      steps_.clear();
      return build({});
    }
  }

private:
  std::vector<Step> build(const std::vector<std::string>& sharedReaders) {
    std::map<std::string, std::vector<std::string>> copiesOf;
    for (const std::string& reader : sharedReaders)
      copiesOf[reader] = cacheOperandsInSharedMemory(reader);

    const int stageCount = static_cast<int>(state_.stages().size());
    for (int stage = 0; stage < stageCount; ++stage) {
      const schedule::Stage& current = state_.stages()[stage];
      if (!current.isOutput() && !current.tensor->isReduction() && !current.sharedMemory)
        push(schedule::ComputeInlineStep{.stage = stage});
    }
    for (const std::string& name : rootStageNames()) {
      const int stage = stageNamed(name);
      if (crossThread_.count(name)) {
        reduceAcrossThreads(stage);
        continue;
      }
      const std::int64_t threads = tile(stage);
      if (auto copies = copiesOf.find(name); copies != copiesOf.end())
        fetchCooperatively(name, copies->second, threads);
    }
    return steps_;
  }

  int stageNamed(const std::string& name) const {
    for (std::size_t i = 0; i < state_.stages().size(); ++i)
      if (state_.stages()[i].tensor->name == name)
        return static_cast<int>(i);
    throw Error("GPU sampling lost stage '" + name + "'");
  }

  std::vector<std::string> rootStageNames() const {
    std::vector<std::string> names;
    for (const schedule::Stage& stage : state_.stages())
      if (stage.location.kind == schedule::ComputeLocationKind::Root && !stage.sharedMemory)
        names.push_back(stage.tensor->name);
    return names;
  }

  // A shared copy of every tensor the reduction `reader` loads: a workload input, or a stage
  // (such as a padding, which is then inlined into its copy, so the fetch pads).
  // Returns the copies' stage names.
  std::vector<std::string> cacheOperandsInSharedMemory(const std::string& reader) {
    const std::vector<te::Tensor> operands =
        te::producersOf(state_.stages()[stageNamed(reader)].tensor);
    std::vector<std::string> copies;
    for (const te::Tensor& operand : operands) {
      const int readerIndex = stageNamed(reader);
      const int producer = state_.stageIndex(operand.get());
      int input = -1;
      for (std::size_t i = 0; producer < 0 && i < state_.inputs().size(); ++i)
        if (state_.inputs()[i].get() == operand.get())
          input = static_cast<int>(i);
      if (producer < 0 && input < 0)
        continue;
      push(schedule::CacheReadStep{.stage = producer,
                                   .input = producer < 0 ? input : -1,
                                   .scope = "shared",
                                   .readers = {readerIndex}});
      copies.push_back(operand->name + ".shared");
    }
    return copies;
  }

  // Each shared copy of `reader`'s operands is computed at the reader's innermost outer-reduce
  // loop (R0), and its elements are spread over the block's `threads`: fused, split by the
  // thread count (and by a vector width of 1, 2 or 4 inside), the thread part bound to
  // threadIdx.x.
  void fetchCooperatively(const std::string& reader, const std::vector<std::string>& copies,
                          std::int64_t threads) {
    const schedule::Stage& readerStage = state_.stages()[stageNamed(reader)];
    const int reduce = static_cast<int>(readerStage.tensor->body->reduceAxes.size());
    // After tile(): blockIdx, vthread, threadIdx, then the R0 part of each reduce axis.
    const int attachAt = 3 + reduce - 1;
    for (const std::string& copy : copies)
      push(schedule::ComputeAtStep{.stage = stageNamed(copy),
                                   .targetStage = stageNamed(reader),
                                   .targetIterator = attachAt});
    for (const std::string& copy : copies) {
      const int stage = stageNamed(copy);
      const int axes = static_cast<int>(state_.stages()[stage].loops.size());
      if (axes > 1) {
        std::vector<int> all(static_cast<std::size_t>(axes));
        for (int axis = 0; axis < axes; ++axis)
          all[static_cast<std::size_t>(axis)] = axis;
        push(schedule::FuseStep{.stage = stage, .iterators = all});
      }
      const std::int64_t vector = rng_.pick(std::vector<std::int64_t>{1, 2, 4});
      push(schedule::SplitStep{.stage = stage,
                               .iterator = 0,
                               .factors = vector > 1 ? std::vector<std::int64_t>{threads, vector}
                                                     : std::vector<std::int64_t>{threads}});
      push(schedule::AnnotationStep{
          .stage = stage, .iterator = 1, .annotation = Annotation::ThreadIdxX});
      if (vector > 1)
        push(schedule::AnnotationStep{
            .stage = stage, .iterator = 2, .annotation = Annotation::Vectorize});
    }
  }

  // Ansor's condition for its cross-thread reduction rule: a reduction with data reuse (one
  // that multi-level tiling serves) takes it only when its spatial work cannot fill a block
  // and is smaller than its reduction; any other takes it when its reduction is longer than a
  // warp.
  bool suitsCrossThreadReduction(const schedule::Stage& stage) const {
    if (options_.maxThreadsPerBlock < kWarpSize)
      return false;
    std::int64_t space = 1, reduction = 1;
    for (std::size_t position = 0; position < stage.loops.size(); ++position)
      (stage.loop(position).kind == schedule::IteratorKind::Spatial ? space : reduction) *=
          stage.loop(position).extent;
    if (hasDataReuse(*stage.tensor))
      return space <= options_.maxThreadsPerBlock && space < reduction;
    return reduction > kWarpSize;
  }

  // Whether some load leaves out a spatial axis, so that its elements serve several outputs.
  static bool hasDataReuse(const te::TensorNode& tensor) {
    bool reuse = false;
    schedule::forEachLoad(tensor.body, [&](const te::Expr& load) {
      for (const te::IterVar& axis : tensor.axes) {
        const auto isNotAxis = [&](const te::VarNode* var) { return var != axis.var.get(); };
        reuse = reuse || std::all_of(load->operands.begin(), load->operands.end(),
                                     [&](const te::Expr& index) {
                                       return schedule::allVariables(index, isNotAxis);
                                     });
      }
    });
    return reuse;
  }

  // Ansor's cross-thread reduction sketch: the reduce axes fused and split by a thread count,
  // whose inner part is bound to threadIdx.x; the spatial axes fused onto blockIdx.x.
  void reduceAcrossThreads(int stage) {
    const int spatial = state_.stages()[stage].spatialAxisCount();
    const int reduce = static_cast<int>(state_.stages()[stage].loops.size()) - spatial;
    if (reduce > 1) {
      std::vector<int> reduceLoops;
      for (int position = spatial; position < spatial + reduce; ++position)
        reduceLoops.push_back(position);
      push(schedule::FuseStep{.stage = stage, .iterators = reduceLoops});
    }
    const std::int64_t extent = state_.stages()[stage].loop(spatial).extent;
    std::vector<std::int64_t> threadChoices;
    for (std::int64_t threads = kWarpSize;
         threads <= std::min<std::int64_t>(extent, options_.maxThreadsPerBlock); threads *= 2)
      threadChoices.push_back(threads);
    if (threadChoices.empty()) // a reduction shorter than a warp: a thread per element
      threadChoices.push_back(extent);
    push(schedule::SplitStep{
        .stage = stage, .iterator = spatial, .factors = {rng_.pick(threadChoices)}});
    if (spatial > 1) {
      std::vector<int> spatialLoops;
      for (int position = 0; position < spatial; ++position)
        spatialLoops.push_back(position);
      push(schedule::FuseStep{.stage = stage, .iterators = spatialLoops});
    }
    if (spatial > 0)
      push(schedule::AnnotationStep{
          .stage = stage, .iterator = 0, .annotation = Annotation::BlockIdxX});
    const int threadLoop = spatial > 0 ? 2 : 1;
    push(schedule::AnnotationStep{
        .stage = stage, .iterator = threadLoop, .annotation = Annotation::ThreadIdxX});
    push(schedule::PragmaStep{.stage = stage,
                              .iterator = 0,
                              .autoUnrollMaxStep =
                                  rng_.pick(std::vector<int>(std::begin(kGpuAutoUnrollChoices),
                                                             std::end(kGpuAutoUnrollChoices)))});
  }

  void push(const Step& step) {
    state_ = schedule::applyStep(std::move(state_), step);
    steps_.push_back(step);
  }

  // Factors for one spatial axis, [vthread, thread, S3, S4], within what the block still allows.
  std::vector<std::int64_t> spatialFactors(std::int64_t extent, std::int64_t& threadsLeft,
                                           std::int64_t& vthreadsLeft) {
    std::int64_t remaining = std::max<std::int64_t>(extent, 1);
    const auto draw = [&](std::int64_t limit) {
      const std::int64_t factor =
          rng_.pick(divisorsUpTo(remaining, std::max<std::int64_t>(limit, 1)));
      remaining /= factor;
      return factor;
    };
    const std::int64_t inner = draw(4);
    const std::int64_t middle = draw(4);
    // Threads first: a block wants many; take a large divisor more often than a small one.
    std::vector<std::int64_t> threadChoices = divisorsUpTo(remaining, threadsLeft);
    const std::int64_t threads =
        threadChoices[threadChoices.size() - 1 -
                      std::min<std::size_t>(rng_.uniformInt(std::uint64_t{3}),
                                            threadChoices.size() - 1)];
    remaining /= threads;
    threadsLeft /= threads;
    const std::int64_t vthreads = draw(vthreadsLeft);
    vthreadsLeft /= vthreads;
    return {vthreads, threads, middle, inner};
  }

  // Returns the stage's threads per block.
  std::int64_t tile(int stage) {
    const int spatial = state_.stages()[stage].spatialAxisCount();
    const int reduce = static_cast<int>(state_.stages()[stage].loops.size()) - spatial;
    if (spatial == 0)
      return 1; // a full reduction: one thread
    std::vector<std::int64_t> extents;
    for (int axis = 0; axis < spatial + reduce; ++axis)
      extents.push_back(state_.stages()[stage].loop(axis).extent);
    // Draw the factors innermost axis first (it is contiguous in memory, so its threads
    // coalesce), then split from the last axis backwards so earlier positions stay put.
    std::int64_t threadsLeft = options_.maxThreadsPerBlock, vthreadsLeft = kMaxVirtualThreads;
    std::vector<std::vector<std::int64_t>> factors(static_cast<std::size_t>(spatial + reduce));
    for (int axis = spatial - 1; axis >= 0; --axis)
      factors[axis] = spatialFactors(extents[axis], threadsLeft, vthreadsLeft);
    for (int axis = spatial; axis < spatial + reduce; ++axis)
      factors[axis] = randomFactors(extents[axis], kReduceLevels, rng_);
    for (int axis = spatial + reduce - 1; axis >= 0; --axis)
      push(schedule::SplitStep{.stage = stage, .iterator = axis, .factors = factors[axis]});

    // Positions after the splits: spatial axis i, level l at 5i + l; reduce axis j, level l at
    // 5·spatial + 3j + l.
    const auto spatialPart = [&](int axis, int level) { return kSpatialLevels * axis + level; };
    const auto reducePart = [&](int axis, int level) {
      return kSpatialLevels * spatial + kReduceLevels * axis + level;
    };
    std::vector<int> order;
    const auto addSpatial = [&](int level) {
      for (int axis = 0; axis < spatial; ++axis)
        order.push_back(spatialPart(axis, level));
    };
    const auto addReduce = [&](int level) {
      for (int axis = 0; axis < reduce; ++axis)
        order.push_back(reducePart(axis, level));
    };
    addSpatial(0);
    addSpatial(1);
    addSpatial(2);
    addReduce(0);
    addReduce(1);
    addSpatial(3);
    addReduce(2);
    addSpatial(4);
    push(schedule::ReorderStep{.stage = stage, .order = order});
    const Annotation bindings[] = {Annotation::BlockIdxX, Annotation::VThread,
                                   Annotation::ThreadIdxX};
    for (int level = 0; level < 3; ++level) {
      if (spatial > 1) {
        std::vector<int> iterators;
        for (int axis = 0; axis < spatial; ++axis)
          iterators.push_back(level + axis);
        push(schedule::FuseStep{.stage = stage, .iterators = iterators});
      }
      push(schedule::AnnotationStep{
          .stage = stage, .iterator = level, .annotation = bindings[level]});
    }
    push(schedule::PragmaStep{.stage = stage,
                              .iterator = 0,
                              .autoUnrollMaxStep =
                                  rng_.pick(std::vector<int>(std::begin(kGpuAutoUnrollChoices),
                                                             std::end(kGpuAutoUnrollChoices)))});
    std::int64_t threads = 1;
    for (int axis = 0; axis < spatial; ++axis)
      threads *= factors[static_cast<std::size_t>(axis)][1];
    return threads;
  }

  GpuSampleOptions options_;
  Rng& rng_;
  State state_;
  std::vector<Step> steps_;
  std::set<std::string> crossThread_; // names of the stages that reduce across threads
};

// Bytes of the shared buffers a kernel of `stmt` allocates (each once, wherever it stands).
std::int64_t sharedBytes(const te::Stmt& stmt, std::set<const te::BufferNode*>& seen) {
  if (!stmt)
    return 0;
  std::int64_t bytes = 0;
  if (stmt->kind == te::StmtKind::Allocate && stmt->buffer->scope == te::BufferScope::Shared &&
      seen.insert(stmt->buffer.get()).second)
    bytes += stmt->buffer->elements * graph::dataTypeBytes(stmt->buffer->dtype);
  bytes += sharedBytes(stmt->body, seen) + sharedBytes(stmt->elseBody, seen);
  for (const te::Stmt& child : stmt->sequence)
    bytes += sharedBytes(child, seen);
  return bytes;
}

// The most shared memory any one kernel (root statement) of the function uses.
std::int64_t maxKernelSharedBytes(const te::LoweredFunction& function) {
  te::Stmt root = function.body;
  while (root && root->kind == te::StmtKind::Allocate &&
         root->buffer->scope != te::BufferScope::Shared)
    root = root->body;
  std::int64_t most = 0;
  const std::vector<te::Stmt> kernels =
      root && root->kind == te::StmtKind::Sequence ? root->sequence : std::vector<te::Stmt>{root};
  for (const te::Stmt& kernel : kernels) {
    std::set<const te::BufferNode*> seen;
    most = std::max(most, sharedBytes(kernel, seen));
  }
  return most;
}

} // namespace

std::vector<std::vector<Step>> sampleGpu(const te::Workload& workload, int count,
                                         std::uint64_t seed, const GpuSampleOptions& options) {
  if (count < 0)
    throw Error("cannot sample " + std::to_string(count) + " schedules");
  std::vector<std::vector<Step>> schedules;
  std::set<std::string> seen;
  const Rng base(seed);
  for (int attempt = 0; attempt < 64 + 16 * count && static_cast<int>(schedules.size()) < count;
       ++attempt) {
    Rng rng = base.fork(static_cast<std::uint64_t>(attempt));
    std::vector<Step> steps = GpuSampler(workload, options, rng).run();
    if (!seen.insert(schedule::toJson(steps).dump()).second)
      continue;
    const te::LoweredFunction lowered =
        schedule::lower(workload, schedule::replay(workload, steps), "sample"); // must lower
    if (maxKernelSharedBytes(lowered) > options.maxSharedMemoryPerBlock)
      continue;
    schedules.push_back(std::move(steps));
  }
  return schedules;
}

} // namespace clustune::search
