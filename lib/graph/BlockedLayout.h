// The blocked channel layout NCHW[x]c (issue 18, item 2), after TVM's x86 conv2d_NCHWc and
// AlterOpLayout: a 2-D convolution reads its input as [N, C/x, H, W, x] and writes
// [N, K/y, OH, OW, y], with the weight as [K/y, C/x, KH, KW, x, y], so that the innermost axis
// of every operand is a block of channels as wide as a vector register. A convolution over a
// 7×7 image then fills whole vectors, where NCHW rows of 7 fill 7 of 16 lanes. A 3-D convolution
// (video) is blocked the same way, with a depth axis before H: [N, C/x, D, H, W, x]. The layout
// names (NCHW, NCHW16c) say where the channels are, whatever the number of spatial axes.
//
// A depthwise convolution becomes DepthwiseConvNCHWc over the same [N, C/x, H, W, x] tensors
// with the weight as [C/x, 1, KH, KW, 1, x]: each lane is a channel, so a stride-2 layer loads
// whole vectors where NCHW gathers every second element of a row.
//
// The pass runs after graph::simplify and before partitioning. It rewrites each eligible Conv
// into the internal operator ConvNCHWc or DepthwiseConvNCHWc, keeps element-wise chains (bias,
// activation, residual add, a squeeze-and-excitation scale), pooling and concatenations along
// the channels in the blocked layout, and inserts LayoutTransform nodes only where a consumer
// needs NCHW (flatten, graph outputs) or a convolution needs another block.
// Weights are re-laid out here, once, not at run time. None of these operators exists in ONNX;
// tasks with them get new workload keys, while a model converted without the pass keeps its keys.
#pragma once

#include "graph/Graph.h"

#include <cstdint>
#include <optional>
#include <string>

namespace clustune::graph {

inline constexpr const char* kConvNCHWcOp = "ConvNCHWc";
inline constexpr const char* kDepthwiseConvNCHWcOp = "DepthwiseConvNCHWc";
inline constexpr const char* kLayoutTransformOp = "LayoutTransform";

// "NCHW" gives 0 (no blocking), "NCHW16c" gives 16; nullopt for any other text.
std::optional<std::int64_t> parseChannelLayout(const std::string& layout);
// The inverse: 0 gives "NCHW", 16 gives "NCHW16c".
std::string channelLayoutName(std::int64_t block);

// The block of a pooling or BatchNormalization node's data: its `layout` attribute, which the
// pass sets to NCHW<x>c when the node reads a blocked tensor; 0 without it. These operators then
// read [N, C/x, spatial..., x]: pooling windows and reductions cover the spatial axes only, and
// channel c of BatchNormalization's parameters is lane c mod x of block c / x.
std::int64_t layoutAttributeBlock(const Node& node);

// [N, C, S...] as [N, C/block, S..., block] for any number of spatial axes S (H, W; or D, H,
// W); `block` divides C.
Shape blockedActivationShape(const Shape& nchw, std::int64_t block);
// The inverse: [N, C/x, S..., x] as [N, C, S...].
Shape unblockedActivationShape(const Shape& blocked);
// [K, C, k...] as [K/outBlock, C/inBlock, k..., inBlock, outBlock].
Shape blockedWeightShape(const Shape& kchw, std::int64_t inBlock, std::int64_t outBlock);
// Whether the pass converts tensors of this rank: 2-D images [N, C, H, W] and 3-D ones
// [N, C, D, H, W] (r3d_18's video).
bool hasBlockableRank(const Shape& shape);

// The block of a convolution's output channels (the vector lanes) when the target block is
// `block`: `block` itself where it divides `channels`, else half of it where that divides them
// (MobileNet's 24, 72 or 120 channels in NCHW8c next to NCHW16c: half a vector, but no layout
// transforms around the layer); 0 where neither does, and the convolution stays NCHW.
std::int64_t outputChannelBlock(std::int64_t channels, std::int64_t block);

// The block of a convolution's input channels when the target block is `block` and its input
// does not exist blocked yet: the largest divisor of `channels` up to `block` (all 3 channels of
// an image; 12 of 24). The input block is the innermost reduction axis, never a vector, so any
// divisor will do, and a convolution whose input is already blocked keeps that block.
std::int64_t inputChannelBlock(std::int64_t channels, std::int64_t block);

struct BlockedLayoutStatistics {
  int convolutions = 0;   // Conv nodes now ConvNCHWc or DepthwiseConvNCHWc
  int depthwise = 0;      // of which DepthwiseConvNCHWc
  int elementwise = 0;    // element-wise and BatchNormalization nodes moved into the blocked layout
  int pooling = 0;        // pooling nodes moved into the blocked layout
  int concatenations = 0; // Concat nodes (along the channels) moved into the blocked layout
  int transforms = 0;     // LayoutTransform nodes inserted
};

// Converts every 2-D and 3-D float32 Conv with a constant weight whose output channels per group
// have a block (outputChannelBlock): group 1, grouped (ConvNCHWc with a `group` attribute), or one
// group per channel (depthwise, output channels = input channels); `block` 0 leaves the graph as it
// is. Expects a simplified graph
// (patterns assigned, attributes explicit) and leaves one.
BlockedLayoutStatistics convertToBlockedLayout(Graph& graph, std::int64_t block);

} // namespace clustune::graph
