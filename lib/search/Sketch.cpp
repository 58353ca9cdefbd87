// See Sketch.h. The sketch steps are computed from the initial loop positions (spatial axes
// first, then reduce axes) rather than applied to a State, because their split factors are not
// known yet; only the inlining is applied, since the fusion rule asks which stages consume a
// reduction once inlined stages are substituted.
#include "search/Sketch.h"

#include "schedule/State.h"

#include <algorithm>
#include <cassert>

namespace clustune::search {
namespace {

using schedule::ComputeAtStep;
using schedule::ReorderStep;
using schedule::SplitStep;
using schedule::Stage;
using schedule::State;

constexpr int kSpatialParts = 4;
constexpr int kReduceParts = 2;

// The per-reduction choice: plain tiling (fusionLevel 0) or fusion at level 1 or 2 of
// `consumer`.
struct TilingChoice {
  int stage = 0;
  int consumer = -1;
  int fusionLevel = 0;
};

// The element-wise output that may absorb `stage` as its epilogue, or -1.
int fusibleConsumer(const State& state, int stage) {
  const std::vector<int> consumers = schedule::effectiveConsumers(state, stage);
  if (consumers.size() != 1)
    return -1;
  const Stage& producer = state.stages()[stage];
  const Stage& consumer = state.stages()[consumers[0]];
  if (!consumer.isOutput() || consumer.tensor->isReduction() ||
      consumer.tensor->shape != producer.tensor->shape || producer.spatialAxisCount() == 0)
    return -1;
  return consumers[0];
}

void addTiling(Sketch& sketch, const State& state, const TilingChoice& choice,
               std::vector<std::size_t>& spatialTiles) {
  const Stage& stage = state.stages()[choice.stage];
  const int spatial = stage.spatialAxisCount();
  const int reduce = static_cast<int>(stage.loops.size()) - spatial;
  // Splitting from the innermost loop outwards keeps the positions of the loops still to split.
  spatialTiles.assign(spatial, 0);
  for (int position = spatial + reduce - 1; position >= 0; --position) {
    const bool isSpatial = position < spatial;
    const int parts = isSpatial ? kSpatialParts : kReduceParts;
    sketch.tiles.push_back({.step = sketch.steps.size(),
                            .extent = stage.loop(position).extent,
                            .parts = parts,
                            .unitLevels = isSpatial ? std::max(choice.fusionLevel - 1, 0) : 0});
    if (isSpatial)
      spatialTiles[position] = sketch.tiles.size() - 1;
    sketch.steps.push_back(SplitStep{.stage = choice.stage,
                                     .iterator = position,
                                     .factors = std::vector<std::int64_t>(parts - 1, 0)});
  }
  // Spatial axis i now has its parts at 4i..4i+3, reduce axis j at 4S+2j..4S+2j+1.
  auto spatialPart = [&](int level) {
    std::vector<int> order;
    for (int axis = 0; axis < spatial; ++axis)
      order.push_back(kSpatialParts * axis + level);
    return order;
  };
  auto reducePart = [&](int level) {
    std::vector<int> order;
    for (int axis = 0; axis < reduce; ++axis)
      order.push_back(kSpatialParts * spatial + kReduceParts * axis + level);
    return order;
  };
  std::vector<int> order;
  for (const std::vector<int>& group : {spatialPart(0), spatialPart(1), reducePart(0),
                                        spatialPart(2), reducePart(1), spatialPart(3)})
    order.insert(order.end(), group.begin(), group.end());
  sketch.steps.push_back(ReorderStep{.stage = choice.stage, .order = order});
  sketch.tiledStages.push_back(choice.stage);
  sketch.description += " tile(" + std::to_string(choice.stage) + ")";
}

void addFusion(Sketch& sketch, const State& state, const TilingChoice& choice,
               const std::vector<std::size_t>& spatialTiles) {
  const int spatial = state.stages()[choice.consumer].spatialAxisCount();
  const int parts = choice.fusionLevel + 1;
  for (int position = spatial - 1; position >= 0; --position) {
    sketch.follows.push_back(
        {.step = sketch.steps.size(), .tile = spatialTiles[position], .level = choice.fusionLevel});
    sketch.steps.push_back(SplitStep{.stage = choice.consumer,
                                     .iterator = position,
                                     .factors = std::vector<std::int64_t>(parts - 1, 0)});
  }
  std::vector<int> order;
  for (int level = 0; level < parts; ++level)
    for (int axis = 0; axis < spatial; ++axis)
      order.push_back(parts * axis + level);
  sketch.steps.push_back(ReorderStep{.stage = choice.consumer, .order = order});
  // The innermost loop of the fused levels: its one iteration reads one reduction tile.
  sketch.steps.push_back(ComputeAtStep{.stage = choice.stage,
                                       .targetStage = choice.consumer,
                                       .targetIterator = choice.fusionLevel * spatial - 1});
  sketch.description += " fuse(" + std::to_string(choice.stage) + "->" +
                        std::to_string(choice.consumer) + "@" + std::to_string(choice.fusionLevel) +
                        ")";
}

} // namespace

std::vector<Sketch> generateSketches(const te::Workload& workload) {
  State state = schedule::initialState(workload);
  Sketch base;
  const int stageCount = static_cast<int>(state.stages().size());
  for (int stage = 0; stage < stageCount; ++stage) {
    const Stage& current = state.stages()[stage];
    if (current.isOutput() || current.tensor->isReduction())
      continue;
    const schedule::Step step = schedule::ComputeInlineStep{.stage = stage};
    state = schedule::applyStep(std::move(state), step);
    base.steps.push_back(step);
    base.description += " inline(" + std::to_string(stage) + ")";
  }

  // The choices of every reduction; their product is the set of sketches.
  std::vector<std::vector<TilingChoice>> choicesPerStage;
  std::vector<int> fusedConsumers;
  for (int stage = 0; stage < stageCount; ++stage) {
    if (!state.stages()[stage].tensor->isReduction())
      continue;
    const int consumer = fusibleConsumer(state, stage);
    // Two reductions feeding one epilogue cannot both tile it: the first one fuses.
    bool consumerTaken = false;
    for (int taken : fusedConsumers)
      consumerTaken = consumerTaken || taken == consumer;
    if (consumer >= 0 && !consumerTaken) {
      fusedConsumers.push_back(consumer);
      choicesPerStage.push_back({{stage, consumer, 1}, {stage, consumer, 2}});
    } else {
      choicesPerStage.push_back({{stage, -1, 0}});
    }
  }

  std::vector<Sketch> sketches = {base};
  for (const std::vector<TilingChoice>& choices : choicesPerStage) {
    std::vector<Sketch> extended;
    for (const Sketch& partial : sketches)
      for (const TilingChoice& choice : choices) {
        Sketch sketch = partial;
        std::vector<std::size_t> spatialTiles;
        addTiling(sketch, state, choice, spatialTiles);
        if (choice.fusionLevel > 0)
          addFusion(sketch, state, choice, spatialTiles);
        extended.push_back(std::move(sketch));
      }
    sketches = std::move(extended);
  }
  for (Sketch& sketch : sketches) {
    if (sketch.description.empty())
      sketch.description = " root";
    sketch.description.erase(0, 1);
    assert(!sketch.description.empty());
  }
  return sketches;
}

} // namespace clustune::search
