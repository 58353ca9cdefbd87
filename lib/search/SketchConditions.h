// The conditions under which the sketch rules of Sketch.h apply, read from a State's stages and
// their loads: Ansor's (a fusible epilogue, AddRfactor) and ours (FlattenPositions,
// PaddingPerTile, PackedOperands). Each is a property of the workload, whatever the factors.
#pragma once

#include "schedule/State.h"

#include <vector>

namespace clustune::search {

// The element-wise output that may absorb `stage` as its epilogue, or -1.
int fusibleConsumer(const schedule::State& state, int stage);

// Ansor's condition for AddRfactor on a tiled reduction: fewer output elements than terms per
// element, so that the reduction itself must supply parallelism or vector lanes.
bool needsRfactor(const schedule::Stage& stage);

// A reduction along rows stored contiguously: every load that reads a reduce axis ends with the
// innermost one (softmax's maximum and sum, a mean over the last axis, a matrix-vector product
// with a transposed matrix). Tiled, such a reduction runs scalar or runs its vector lanes across
// rows (a gather per vector); with rfactor's inner part factored out, the lanes run along a row.
bool reducesAlongRows(const schedule::Stage& stage);

// Ansor's NeedsMultiLevelTiling, negated: no operand of the reduction is read again for another
// output element (every load that reads a reduce axis reads every spatial axis too), so a
// register tile (cache_write) has nothing to keep.
bool reusesNoOperand(const schedule::Stage& stage);

// A padding stage (topi's spreadAndPad): a select between a load and a constant fill.
bool isPadding(const schedule::Stage& stage);

// The padding stages whose only reader is `reduction`: those it may compute per tile.
std::vector<int> paddingProducers(const schedule::State& state, int reduction);

// Whether fusing the reduction's last two spatial axes (rows and columns) gives one loop that
// every load walks at unit stride, as a 1x1 stride-1 convolution's positions: each load either
// ignores both axes or ends with them, as they are, in a tensor whose rows are as long as the
// output's. Then a vector or a tile can span rows, which a row of 7 or 14 cannot fill.
bool flattensContiguously(const schedule::Stage& stage);

// The workload inputs that a packed copy per tile could serve: read directly by the tiled
// stage, with its last spatial axis as their innermost index (the vectorized one) and a reduce
// axis among the others, so that a tile's slice is reused across the tile's other spatial
// positions, as a GEMM's B panel is across the rows of A.
std::vector<int> packableInputs(const schedule::State& state, int stageIndex);

} // namespace clustune::search
