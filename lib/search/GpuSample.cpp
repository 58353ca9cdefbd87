// See GpuSample.h. Steps are applied as they are drawn, so that each one reads the loop
// positions the earlier ones left.
#include "search/GpuSample.h"

#include "schedule/Lower.h"
#include "schedule/State.h"
#include "search/RandomAnnotation.h"
#include "support/Error.h"
#include "support/Random.h"

#include <algorithm>
#include <set>

namespace clustune::search {
namespace {

using schedule::Annotation;
using schedule::State;
using schedule::Step;

constexpr int kSpatialLevels = 5, kReduceLevels = 3;

class GpuSampler {
public:
  GpuSampler(const te::Workload& workload, const GpuSampleOptions& options, Rng& rng)
      : options_(options), rng_(rng), state_(schedule::initialState(workload)) {}

  std::vector<Step> run() {
    const int stageCount = static_cast<int>(state_.stages().size());
    for (int stage = 0; stage < stageCount; ++stage) {
      const schedule::Stage& current = state_.stages()[stage];
      if (!current.isOutput() && !current.tensor->isReduction())
        push(schedule::ComputeInlineStep{.stage = stage});
    }
    for (int stage = 0; stage < stageCount; ++stage)
      if (state_.stages()[stage].location.kind == schedule::ComputeLocationKind::Root)
        tile(stage);
    return steps_;
  }

private:
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

  void tile(int stage) {
    const int spatial = state_.stages()[stage].spatialAxisCount();
    const int reduce = static_cast<int>(state_.stages()[stage].loops.size()) - spatial;
    if (spatial == 0)
      return; // a full reduction: one thread
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
  }

  GpuSampleOptions options_;
  Rng& rng_;
  State state_;
  std::vector<Step> steps_;
};

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
    schedule::lower(workload, schedule::replay(workload, steps), "sample"); // must lower
    schedules.push_back(std::move(steps));
  }
  return schedules;
}

} // namespace clustune::search
