// Sketch generation (DESIGN §7), after Ansor's CPU sketch rules: a sketch fixes the structure
// of a schedule (which stages are inlined, cached or factored, how each reduction is tiled,
// where it is computed) and leaves the tile sizes open. Random annotation (RandomAnnotation.h)
// fills them and adds parallel, vectorize and unroll annotations.
//   - AlwaysInline: every stage that is neither an output nor a reduction (element-wise,
//     injective, padding) is inlined into its consumers.
//   - MultiLevelTiling: every reduction gets the "SSRSRS" structure: each spatial axis split in
//     4 parts, each reduce axis in 2, reordered to S0 S1 R0 S2 R1 S3.
//   - MultiLevelTilingWithFusion: when a reduction's only consumer is an element-wise output of
//     the same shape (a bias or activation epilogue), the consumer's spatial axes are tiled like
//     the reduction's outer levels and the reduction is computed at level 1 or 2 of the consumer
//     (two sketches), so the epilogue runs on a tile while it is still in cache.
//   - AddCacheWrite: a reduction without such a consumer is also sketched with cache_write, its
//     cache tiled and fused into the copy at level 1 or 2 as above, so each register tile
//     accumulates in a local buffer and is written out once.
//   - AddRfactor: a reduction with fewer outputs than terms per output is also sketched with
//     its reduce loops fused, split in two and one part factored out by rfactor (two sketches);
//     neither stage is tiled further.
//   - FlattenPositions (ours): when every load walks the reduction's last two spatial axes as
//     the last two dimensions of a tensor with rows as long as the output's (a 1x1 stride-1
//     convolution), the tiled rules are also sketched with those axes fused first, so that a
//     vector or tile spans rows (a row of 7 fills 7 of 16 lanes).
//   - PaddingPerTile (ours): the padding stages a reduction alone reads are, in a second set of
//     sketches, computed at the reduction's last S1 loop instead of inlined, so that each tile
//     copies its input with the zero border once and the reduce loops read it without testing
//     the border per lane.
//   - PackedOperands (ours): a sketch with one SSRSRS stage is also sketched with a cache_read
//     of each input that stage reads along its last spatial axis and a reduce axis (a GEMM's
//     B), computed at the stage's last R0 loop: the R1 x tile slice it reads is copied once
//     into a contiguous buffer, as TVM's and oneDNN's packed GEMM panels are.
//   - Element-wise root stages keep their loops.
// Reductions are visited from the last stage to the first, as Ansor does, so a step's stage
// index is the one in force when it is replayed: cache_write and rfactor at stage s renumber
// only stages after s, which are already sketched.
#pragma once

#include "schedule/Step.h"
#include "te/Tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace clustune::search {

// A SplitStep of a tiled axis whose factors (all 0 in the sketch) random annotation draws: a
// factorisation of `extent` into `parts` loops. The first `unitLevels` factors (levels 1, ...)
// are written as 1: at fusion level 2 the consumer iterates level 1, so the reduction computes
// only the tile of levels 2 and 3 per attach iteration.
struct TileSplit {
  std::size_t step = 0;
  std::int64_t extent = 0;
  int parts = 0;
  int unitLevels = 0;
};

// A SplitStep of a fused consumer's axis that follows the drawn factors [a1, a2, a3] of `tile`:
// fusion level 1 gives {a1·a2·a3}, level 2 gives {a1, a2·a3}, so the consumer's outer loops
// walk the reduction's outer tile levels.
struct FollowSplit {
  std::size_t step = 0;
  std::size_t tile = 0; // index into Sketch::tiles
  int level = 0;
};

struct Sketch {
  std::string description;           // the rules applied, e.g. "inline(0) tile(1) fuse(1->3@2)"
  std::vector<schedule::Step> steps; // split factors are 0 until annotation fills them
  std::vector<TileSplit> tiles;
  std::vector<FollowSplit> follows;
  // Stages with the SSRSRS structure, sorted, numbered as after the whole sketch.
  std::vector<int> tiledStages;
};

// Every sketch of the workload (at least one; the product of the per-reduction choices), in a
// fixed order.
std::vector<Sketch> generateSketches(const te::Workload& workload);

// The drawn factors of a sketch's tiles, one list per TileSplit (`parts - 1` factors,
// outermost first). They are the degrees of freedom of tiling: writing them into a schedule
// sets both the tiled split and every FollowSplit of its fused consumer.
using TileFactors = std::vector<std::vector<std::int64_t>>;

// Writes `factors` into the sketch's split steps, which are the first sketch.steps.size()
// entries of `steps`: a TileSplit gets its factors with the first `unitLevels` written as 1, a
// FollowSplit the combination of its tile's factors for its fusion level.
void setTileFactors(const Sketch& sketch, const TileFactors& factors,
                    std::vector<schedule::Step>& steps);

// Whether `steps` begin with the sketch's steps, equal but for the factors the sketch leaves
// open: then the schedule is a completion of this sketch.
bool completesSketch(const Sketch& sketch, const std::vector<schedule::Step>& steps);

// The factors a completion of `sketch` drew, read back from its split steps (a unit level's
// factor from the FollowSplit that kept it), so that setTileFactors(sketch, tileFactors(...))
// leaves the steps unchanged.
TileFactors tileFactors(const Sketch& sketch, const std::vector<schedule::Step>& steps);

} // namespace clustune::search
