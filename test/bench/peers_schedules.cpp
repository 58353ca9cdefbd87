// The hand-picked schedules of bench-peers (see peers_schedules.h), built from the stage's loop
// structure so that one recipe serves every case of a kind.
#include "peers_schedules.h"

#include "support/Error.h"
#include "te/LowerTask.h"

#include <algorithm>

namespace clustune::bench {

using schedule::Annotation;
using schedule::Step;

namespace {

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

} // namespace

// GEMM C[i, j] = Σ_k A[i, k] B[k, j], loops i, j, k. A register tile of `rows` × `columns`
// (columns vectorized, rows unrolled) accumulates over a k block of `kBlock`; the outer loops
// are row blocks (parallel, one per thread), k blocks, j tiles, and the i tiles of the block.
// B is packed with cache_read at the j-tile loop: its kBlock × columns panel becomes contiguous
// 128-byte rows (in L2, read at unit stride by every i tile of the block, each element copied
// once per thread), where unpacked at n = 1024 its rows are 4 KiB apart, fall into the same L1
// sets and are each on a new page. Packing A as well (at the k-block loop) measured no better:
// its rows stay kBlock apart in the copy, and with kBlock = k the copy is A itself.
std::vector<Step> handGemm(const te::Workload& workload, std::int64_t m, std::int64_t n,
                           std::int64_t k, int threads) {
  StepList list(workload);
  const int product = stageOfAnchor(list.state());
  // The copy of B (input 1) goes first: B.local, C.
  list.push(schedule::CacheReadStep{.stage = -1, .input = 1, .readers = {product}});
  const int packedB = 0, stage = product + 1;
  const std::int64_t rows = 8, columns = 32, kBlock = std::min<std::int64_t>(k, 1024);
  const std::int64_t rowBlock = std::max<std::int64_t>(m / threads / rows, 1) * rows;
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
  // The panel, per j tile; its rows copied as vectors.
  list.push(schedule::ComputeAtStep{.stage = packedB, .targetStage = stage, .targetIterator = 2});
  list.push(schedule::AnnotationStep{
      .stage = packedB, .iterator = 1, .annotation = Annotation::Vectorize});
  (void)n;
  return list.steps();
}

namespace {

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

} // namespace

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

} // namespace clustune::bench
