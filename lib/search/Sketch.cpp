// See Sketch.h. A sketch's steps cannot be applied to a State as they are, because their split
// factors are not known yet (0). Each partial sketch therefore carries a State with the same
// steps applied with unit factors instead: the structure (stage indices, loop positions,
// consumers once stages are inlined or cached) is the same whatever the factors, so every rule
// reads it from there. Reductions are visited from the last stage to the first, as in Ansor,
// so that cache_write and rfactor, which insert a stage, only renumber stages already done.
#include "search/Sketch.h"

#include "schedule/State.h"
#include "search/SketchConditions.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <numeric>

namespace clustune::search {
namespace {

using schedule::CacheReadStep;
using schedule::CacheWriteStep;
using schedule::ComputeAtStep;
using schedule::ComputeInlineStep;
using schedule::FuseStep;
using schedule::ReorderStep;
using schedule::RfactorStep;
using schedule::SplitStep;
using schedule::Stage;
using schedule::State;
using schedule::Step;

constexpr int kSpatialParts = 4;
constexpr int kReduceParts = 2;

// What one sketch does with one reduction.
enum class Rule {
  Tile,           // MultiLevelTiling at root
  Fuse,           // MultiLevelTilingWithFusion into its element-wise consumer
  CacheWriteFuse, // AddCacheWrite, then the cache tiled and fused into the copy
  RfactorOuter,   // AddRfactor, the outer part of the split reduction factored out
  RfactorInner    // AddRfactor, the inner part factored out (and made the innermost loop)
};

struct Choice {
  Rule rule = Rule::Tile;
  int fusionLevel = 0; // Fuse and CacheWriteFuse: 1 or 2
  // Tile, Fuse and CacheWriteFuse: the last two spatial axes fused into one before tiling.
  bool flatten = false;
  // Tile, Fuse and CacheWriteFuse: the padding stages the reduction reads are computed per
  // tile instead of inlined.
  bool padAtTile = false;
};

struct PartialSketch {
  Sketch sketch;
  State state; // the sketch's steps with unit split factors
};

// The leading spatial loops of a stage (before any tiling, its spatial axes or their fusion).
int spatialLoopCount(const Stage& stage) {
  int count = 0;
  while (count < static_cast<int>(stage.loops.size()) &&
         stage.loop(count).kind == schedule::IteratorKind::Spatial)
    ++count;
  return count;
}

// Appends a step to the sketch and applies it to the structural state, where a factor still to
// be drawn counts as 1 (always legal, and the loop structure is the same).
void push(PartialSketch& partial, const Step& step) {
  partial.sketch.steps.push_back(step);
  Step structural = step;
  if (auto* split = std::get_if<SplitStep>(&structural))
    for (std::int64_t& factor : split->factors)
      factor = factor == 0 ? 1 : factor;
  partial.state = schedule::applyStep(std::move(partial.state), structural);
}

// A stage was inserted at `stage`: the stages already tiled (all after it) move up by one.
void renumberTiledStages(Sketch& sketch, int stage) {
  for (int& tiled : sketch.tiledStages)
    tiled += tiled >= stage ? 1 : 0;
}

// MultiLevelTiling: the spatial tiles' TileSplit indices, per spatial axis.
std::vector<std::size_t> addTiling(PartialSketch& partial, int stageIndex, int fusionLevel) {
  Sketch& sketch = partial.sketch;
  const Stage& stage = partial.state.stages()[stageIndex];
  const int spatial = spatialLoopCount(stage);
  const int reduce = static_cast<int>(stage.loops.size()) - spatial;
  std::vector<std::int64_t> extents;
  for (std::size_t position = 0; position < stage.loops.size(); ++position)
    extents.push_back(stage.loop(position).extent);
  // Splitting from the innermost loop outwards keeps the positions of the loops still to split.
  std::vector<std::size_t> spatialTiles(spatial, 0);
  for (int position = spatial + reduce - 1; position >= 0; --position) {
    const bool isSpatial = position < spatial;
    const int parts = isSpatial ? kSpatialParts : kReduceParts;
    sketch.tiles.push_back({.step = sketch.steps.size(),
                            .extent = extents[position],
                            .parts = parts,
                            .unitLevels = isSpatial ? std::max(fusionLevel - 1, 0) : 0});
    if (isSpatial)
      spatialTiles[position] = sketch.tiles.size() - 1;
    push(partial, SplitStep{.stage = stageIndex,
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
  push(partial, ReorderStep{.stage = stageIndex, .order = order});
  sketch.tiledStages.push_back(stageIndex);
  sketch.description += " tile(" + std::to_string(stageIndex) + ")";
  return spatialTiles;
}

// MultiLevelTilingWithFusion: the consumer's spatial axes follow the tiles of `stageIndex`,
// which is computed at the consumer's level-`level` tile loop.
void addFusion(PartialSketch& partial, int stageIndex, int consumer, int level,
               const std::vector<std::size_t>& spatialTiles) {
  Sketch& sketch = partial.sketch;
  const int spatial = spatialLoopCount(partial.state.stages()[consumer]);
  const int parts = level + 1;
  for (int position = spatial - 1; position >= 0; --position) {
    sketch.follows.push_back(
        {.step = sketch.steps.size(), .tile = spatialTiles[position], .level = level});
    push(partial, SplitStep{.stage = consumer,
                            .iterator = position,
                            .factors = std::vector<std::int64_t>(parts - 1, 0)});
  }
  std::vector<int> order;
  for (int part = 0; part < parts; ++part)
    for (int axis = 0; axis < spatial; ++axis)
      order.push_back(parts * axis + part);
  push(partial, ReorderStep{.stage = consumer, .order = order});
  // The innermost loop of the fused levels: its one iteration reads one reduction tile.
  push(partial, ComputeAtStep{.stage = stageIndex,
                              .targetStage = consumer,
                              .targetIterator = level * spatial - 1});
  sketch.description += " fuse(" + std::to_string(stageIndex) + "->" + std::to_string(consumer) +
                        "@" + std::to_string(level) + ")";
}

// AddRfactor: all reduce loops fused into one, split in two by a drawn factor, and one part
// factored out into a new stage "<name>.rf" at `stageIndex` (the reduction moves to
// stageIndex + 1). With the inner part factored out, that part becomes the partial stage's
// innermost loop so that it can be vectorized.
void addRfactor(PartialSketch& partial, int stageIndex, bool inner) {
  Sketch& sketch = partial.sketch;
  const Stage& stage = partial.state.stages()[stageIndex];
  const int spatial = stage.spatialAxisCount();
  const int reduce = static_cast<int>(stage.loops.size()) - spatial;
  std::int64_t reduceExtent = 1;
  for (int position = spatial; position < spatial + reduce; ++position)
    reduceExtent *= stage.loop(position).extent;
  if (reduce > 1) {
    std::vector<int> iterators(reduce);
    std::iota(iterators.begin(), iterators.end(), spatial);
    push(partial, FuseStep{.stage = stageIndex, .iterators = iterators});
  }
  sketch.tiles.push_back(
      {.step = sketch.steps.size(), .extent = reduceExtent, .parts = 2, .unitLevels = 0});
  push(partial, SplitStep{.stage = stageIndex, .iterator = spatial, .factors = {0}});
  push(partial, RfactorStep{.stage = stageIndex,
                            .iterator = spatial + (inner ? 1 : 0),
                            .factorIteratorPosition = spatial});
  renumberTiledStages(sketch, stageIndex);
  if (inner) {
    // Partial stage loops: spatial axes, the factored part (spatial), the other part (reduce).
    std::vector<int> order(spatial);
    std::iota(order.begin(), order.end(), 0);
    order.push_back(spatial + 1);
    order.push_back(spatial);
    push(partial, ReorderStep{.stage = stageIndex, .order = order});
  }
  sketch.description += " rfactor(" + std::to_string(stageIndex) + (inner ? ",inner)" : ",outer)");
}

// Fuses the last two spatial loops of a stage that has not been split yet.
void flattenRowsAndColumns(PartialSketch& partial, int stageIndex) {
  const int spatial = spatialLoopCount(partial.state.stages()[stageIndex]);
  push(partial, FuseStep{.stage = stageIndex, .iterators = {spatial - 2, spatial - 1}});
}

// Padding per tile: each padding stage of the reduction is computed at its last outer spatial
// loop (the end of S1), so that one tile's input with its zero border is copied once and the
// reduce loops below read it without testing the border.
void addPaddingAtTile(PartialSketch& partial, int stageIndex, const std::vector<int>& pads) {
  // After tiling the leading spatial loops are exactly S0 and S1.
  const int lastOuter = spatialLoopCount(partial.state.stages()[stageIndex]) - 1;
  for (int pad : pads) {
    push(partial,
         ComputeAtStep{.stage = pad, .targetStage = stageIndex, .targetIterator = lastOuter});
    partial.sketch.description +=
        " pad_at(" + std::to_string(pad) + "->" + std::to_string(stageIndex) + ")";
  }
}

void applyChoice(PartialSketch& partial, int stageIndex, const Choice& choice,
                 const std::vector<int>& pads) {
  if (choice.rule == Rule::RfactorOuter || choice.rule == Rule::RfactorInner) {
    addRfactor(partial, stageIndex, choice.rule == Rule::RfactorInner);
    return;
  }
  // The tiled stage keeps the index: a cache_write's cache takes it and its copy follows (as
  // every stage it inserts, after the pads, whose indices hold).
  const int tiled = stageIndex;
  if (choice.rule == Rule::CacheWriteFuse) {
    push(partial, CacheWriteStep{.stage = stageIndex});
    renumberTiledStages(partial.sketch, stageIndex);
    partial.sketch.description += " cache_write(" + std::to_string(stageIndex) + ")";
  }
  if (choice.flatten) {
    flattenRowsAndColumns(partial, tiled);
    partial.sketch.description += " flatten(" + std::to_string(tiled) + ")";
  }
  const int consumer = choice.rule == Rule::Fuse             ? fusibleConsumer(partial.state, tiled)
                       : choice.rule == Rule::CacheWriteFuse ? tiled + 1
                                                             : -1;
  assert(choice.rule == Rule::Tile || consumer >= 0);
  const int fusionLevel = choice.rule == Rule::Tile ? 0 : choice.fusionLevel;
  const std::vector<std::size_t> tiles = addTiling(partial, tiled, fusionLevel);
  if (consumer >= 0) {
    if (choice.flatten)
      flattenRowsAndColumns(partial, consumer);
    addFusion(partial, tiled, consumer, choice.fusionLevel, tiles);
  }
  if (choice.padAtTile)
    addPaddingAtTile(partial, tiled, pads);
}

// The choices of every reduction, decided on the inlined workload. With `padAtTile`, only the
// tiled rules, each computing the reduction's padding (`padsPerStage`) per tile; a reduction
// without padding keeps its choices. Two reductions feeding one epilogue cannot both tile it:
// the first one fuses.
std::vector<std::vector<Choice>>
reductionChoices(const State& inlined, bool padAtTile,
                 const std::vector<std::vector<int>>& padsPerStage) {
  const int stageCount = static_cast<int>(inlined.stages().size());
  std::vector<std::vector<Choice>> choicesPerStage(stageCount);
  std::vector<int> fusedConsumers;
  for (int stage = 0; stage < stageCount; ++stage) {
    const Stage& current = inlined.stages()[stage];
    if (!current.tensor->isReduction())
      continue;
    std::vector<Choice>& choices = choicesPerStage[stage];
    const int consumer = fusibleConsumer(inlined, stage);
    const bool consumerTaken =
        std::find(fusedConsumers.begin(), fusedConsumers.end(), consumer) != fusedConsumers.end();
    if (consumer >= 0 && !consumerTaken) {
      fusedConsumers.push_back(consumer);
      choices = {{Rule::Fuse, 1}, {Rule::Fuse, 2}};
    } else {
      // AddCacheWrite keeps the plain tiling too (Ansor's kApply); a rank-0 reduction has no
      // tile to fuse at, and one without reuse nothing for a register tile to keep.
      choices = {{Rule::Tile, 0}};
      if (current.spatialAxisCount() > 0 && !reusesNoOperand(current))
        choices.insert(choices.end(), {{Rule::CacheWriteFuse, 1}, {Rule::CacheWriteFuse, 2}});
    }
    if (flattensContiguously(current)) {
      const std::size_t plain = choices.size();
      for (std::size_t k = 0; k < plain; ++k) {
        Choice flattened = choices[k];
        flattened.flatten = true;
        choices.push_back(flattened);
      }
    }
    if (padAtTile && !padsPerStage[stage].empty()) {
      for (Choice& choice : choices)
        choice.padAtTile = true;
    } else if (needsRfactor(current)) {
      choices.insert(choices.end(), {{Rule::RfactorOuter, 0}, {Rule::RfactorInner, 0}});
    } else if (reducesAlongRows(current)) {
      choices.push_back({Rule::RfactorInner, 0});
    }
  }
  return choicesPerStage;
}

// Every sketch from `base`: the product of the reductions' choices, visited from the last stage.
std::vector<PartialSketch> expandChoices(const PartialSketch& base,
                                         const std::vector<std::vector<Choice>>& choicesPerStage,
                                         const std::vector<std::vector<int>>& padsPerStage) {
  std::vector<PartialSketch> partials = {base};
  for (int stage = static_cast<int>(choicesPerStage.size()) - 1; stage >= 0; --stage) {
    if (choicesPerStage[stage].empty())
      continue;
    std::vector<PartialSketch> extended;
    for (const PartialSketch& partial : partials)
      for (const Choice& choice : choicesPerStage[stage]) {
        PartialSketch next = partial;
        applyChoice(next, stage, choice, padsPerStage[stage]);
        extended.push_back(std::move(next));
      }
    partials = std::move(extended);
  }
  return partials;
}

// Packed operands: a sketch with one SSRSRS stage also comes with a cache_read of each packable
// input, computed at the stage's last outer reduce loop (the end of R0), so that the slice one
// R0 iteration reads (R1 x the spatial tile below) is copied once into a contiguous buffer.
std::vector<PartialSketch> withPackedInputs(const PartialSketch& partial) {
  std::vector<PartialSketch> variants;
  if (partial.sketch.tiledStages.size() != 1)
    return variants;
  const int tiled = partial.sketch.tiledStages.front();
  const Stage& stage = partial.state.stages()[tiled];
  const int outerSpatial = spatialLoopCount(stage); // S0 and S1
  int lastOuterReduce = outerSpatial;
  while (lastOuterReduce < static_cast<int>(stage.loops.size()) &&
         stage.loop(lastOuterReduce).kind == schedule::IteratorKind::Reduce)
    ++lastOuterReduce;
  --lastOuterReduce;
  if (lastOuterReduce < outerSpatial)
    return variants;
  for (int input : packableInputs(partial.state, tiled)) {
    PartialSketch packed = partial;
    push(packed, CacheReadStep{.stage = -1, .input = input, .scope = "local", .readers = {tiled}});
    renumberTiledStages(packed.sketch, 0);
    push(packed,
         ComputeAtStep{.stage = 0, .targetStage = tiled + 1, .targetIterator = lastOuterReduce});
    packed.sketch.description +=
        " pack(input" + std::to_string(input) + "->" + std::to_string(tiled + 1) + ")";
    variants.push_back(std::move(packed));
  }
  return variants;
}

} // namespace

std::vector<Sketch> generateSketches(const te::Workload& workload) {
  const State initial = schedule::initialState(workload);
  const int stageCount = static_cast<int>(initial.stages().size());
  // The padding stages that a reduction may compute per tile, per reduction.
  std::vector<std::vector<int>> padsPerStage(stageCount);
  std::vector<bool> isKeptPad(stageCount, false);
  bool anyPadding = false;
  for (int stage = 0; stage < stageCount; ++stage)
    if (initial.stages()[stage].tensor->isReduction()) {
      padsPerStage[stage] = paddingProducers(initial, stage);
      for (int pad : padsPerStage[stage])
        isKeptPad[pad] = anyPadding = true;
    }

  // AlwaysInline; the second base keeps the padding of reductions for computing it per tile.
  std::vector<PartialSketch> partials;
  for (const bool padAtTile : {false, true}) {
    if (padAtTile && !anyPadding)
      break;
    PartialSketch base{.sketch = {}, .state = initial};
    PartialSketch inlinedBase = base; // everything inlined: where the choices are decided
    for (int stage = 0; stage < stageCount; ++stage) {
      const Stage& current = initial.stages()[stage];
      if (current.isOutput() || current.tensor->isReduction())
        continue;
      push(inlinedBase, ComputeInlineStep{.stage = stage});
      if (padAtTile && isKeptPad[stage])
        continue;
      push(base, ComputeInlineStep{.stage = stage});
      base.sketch.description += " inline(" + std::to_string(stage) + ")";
    }
    const std::vector<PartialSketch> expanded = expandChoices(
        base, reductionChoices(inlinedBase.state, padAtTile, padsPerStage), padsPerStage);
    partials.insert(partials.end(), expanded.begin(), expanded.end());
  }
  for (std::size_t plain = partials.size(), k = 0; k < plain; ++k) {
    std::vector<PartialSketch> packed = withPackedInputs(partials[k]);
    partials.insert(partials.end(), packed.begin(), packed.end());
  }

  std::vector<Sketch> sketches;
  for (PartialSketch& partial : partials) {
    Sketch& sketch = partial.sketch;
    std::sort(sketch.tiledStages.begin(), sketch.tiledStages.end());
    if (sketch.description.empty())
      sketch.description = " root";
    sketch.description.erase(0, 1);
    sketches.push_back(std::move(sketch));
  }
  return sketches;
}

void setTileFactors(const Sketch& sketch, const TileFactors& factors,
                    std::vector<schedule::Step>& steps) {
  assert(factors.size() == sketch.tiles.size() && steps.size() >= sketch.steps.size());
  for (std::size_t tile = 0; tile < sketch.tiles.size(); ++tile) {
    std::vector<std::int64_t> written = factors[tile];
    for (int level = 0; level < sketch.tiles[tile].unitLevels; ++level)
      written[static_cast<std::size_t>(level)] = 1;
    std::get<SplitStep>(steps[sketch.tiles[tile].step]).factors = std::move(written);
  }
  for (const FollowSplit& follow : sketch.follows) {
    const std::vector<std::int64_t>& leader = factors[follow.tile];
    // leader = [a1, a2, a3]: the consumer keeps the first level - 1 factors and multiplies the
    // rest, so its innermost part is the reduction tile computed per attach iteration.
    const auto kept = leader.begin() + (follow.level - 1);
    std::vector<std::int64_t> written(leader.begin(), kept);
    written.push_back(
        std::accumulate(kept, leader.end(), std::int64_t{1}, std::multiplies<std::int64_t>()));
    std::get<SplitStep>(steps[follow.step]).factors = std::move(written);
  }
}

bool completesSketch(const Sketch& sketch, const std::vector<schedule::Step>& steps) {
  if (steps.size() < sketch.steps.size())
    return false;
  for (std::size_t index = 0; index < sketch.steps.size(); ++index) {
    const Step& open = sketch.steps[index];
    if (const auto* openSplit = std::get_if<SplitStep>(&open)) {
      const auto* split = std::get_if<SplitStep>(&steps[index]);
      if (!split || split->stage != openSplit->stage || split->iterator != openSplit->iterator ||
          split->factors.size() != openSplit->factors.size())
        return false;
    } else if (!(steps[index] == open)) {
      return false;
    }
  }
  return true;
}

TileFactors tileFactors(const Sketch& sketch, const std::vector<schedule::Step>& steps) {
  assert(completesSketch(sketch, steps));
  TileFactors factors;
  for (const TileSplit& tile : sketch.tiles)
    factors.push_back(std::get<SplitStep>(steps[tile.step]).factors);
  for (const FollowSplit& follow : sketch.follows) {
    const std::vector<std::int64_t>& followed = std::get<SplitStep>(steps[follow.step]).factors;
    for (int level = 0; level < sketch.tiles[follow.tile].unitLevels; ++level)
      factors[follow.tile][static_cast<std::size_t>(level)] =
          followed[static_cast<std::size_t>(level)];
  }
  return factors;
}

} // namespace clustune::search
