// Ansor-style per-store program features (DESIGN §6, REFERENCES.md "Ansor"): one vector of 164
// values per Store statement of a lowered loop nest, in Ansor's order, the input of the learned
// cost models. Every value goes through slog(x) = sign(x)·log2(1 + |x|) except the one-hot
// flags. Each feature's exact definition, and where it departs from Ansor, is in
// docs/features.md; the index constants below name every position so that consumers and tests
// never spell raw numbers.
#pragma once

#include "te/Stmt.h"

#include <array>
#include <cstddef>
#include <vector>

namespace clustune::features {

inline constexpr std::size_t kProgramFeatureCount = 164;
// Bumped whenever a feature's definition or position changes: cost models record the version
// they were trained on and refuse features of another.
inline constexpr int kProgramFeatureVersion = 1;

struct StoreFeatures {
  std::array<float, kProgramFeatureCount> values = {};
};

// One entry per Store statement, in program order (depth-first, as the statements appear).
std::vector<StoreFeatures> extractProgramFeatures(const te::LoweredFunction& function);

// sign(x)·log2(1 + |x|): compresses counts spanning many orders of magnitude.
float slog(double value);

// Where an annotated loop sits among the store's loops (one-hot, 8 values, in this order).
enum class LoopPosition {
  None,
  InnerSpatial,
  MiddleSpatial,
  OuterSpatial,
  InnerReduce,
  MiddleReduce,
  OuterReduce,
  Mixed
};
inline constexpr std::size_t kLoopPositionCount = 8;

enum class AccessType { Read, Write, ReadWrite };
enum class ReuseType { LoopMultipleRead, SerialMultipleReadWrite, None };

namespace index {
// Computation: operation counts per store, times its execution count.
inline constexpr std::size_t kFloatMad = 0;
inline constexpr std::size_t kFloatAddSub = 1;
inline constexpr std::size_t kFloatMul = 2;
inline constexpr std::size_t kFloatDivMod = 3;
inline constexpr std::size_t kFloatCmp = 4;
inline constexpr std::size_t kFloatMathFunc = 5;
inline constexpr std::size_t kFloatOtherFunc = 6;
inline constexpr std::size_t kIntMad = 7;
inline constexpr std::size_t kIntAddSub = 8;
inline constexpr std::size_t kIntMul = 9;
inline constexpr std::size_t kIntDivMod = 10;
inline constexpr std::size_t kIntCmp = 11;
inline constexpr std::size_t kIntMathFunc = 12;
inline constexpr std::size_t kIntOtherFunc = 13;
inline constexpr std::size_t kBoolOp = 14;
inline constexpr std::size_t kSelectOp = 15;

// Loop annotations: vectorize, unroll and parallel each have count, product, length and the
// one-hot position of their innermost annotated loop.
inline constexpr std::size_t kVectorize = 16;
inline constexpr std::size_t kUnroll = 27;
inline constexpr std::size_t kParallel = 38;
inline constexpr std::size_t kAnnotationCount = 0; // offsets from kVectorize/kUnroll/kParallel
inline constexpr std::size_t kAnnotationProduct = 1;
inline constexpr std::size_t kAnnotationLength = 2;
inline constexpr std::size_t kAnnotationPosition = 3;
constexpr std::size_t annotationPosition(std::size_t annotation, LoopPosition position) {
  return annotation + kAnnotationPosition + static_cast<std::size_t>(position);
}

// GPU thread bindings (always 0 on CPU; kept so that vectors match Ansor's layout).
inline constexpr std::size_t kIsGpu = 49;
inline constexpr std::size_t kBlockIdxX = 50;
inline constexpr std::size_t kBlockIdxY = 51;
inline constexpr std::size_t kBlockIdxZ = 52;
inline constexpr std::size_t kThreadIdxX = 53;
inline constexpr std::size_t kThreadIdxY = 54;
inline constexpr std::size_t kThreadIdxZ = 55;
inline constexpr std::size_t kVthread = 56;

// Buffer accesses: five slots of 18 values, most important buffer first.
inline constexpr std::size_t kBufferSlots = 5;
inline constexpr std::size_t kBufferFeatureCount = 18;
inline constexpr std::size_t kBuffers = 57;
inline constexpr std::size_t kAccessRead = 0; // offsets within a slot
inline constexpr std::size_t kAccessWrite = 1;
inline constexpr std::size_t kAccessReadWrite = 2;
inline constexpr std::size_t kBytes = 3;
inline constexpr std::size_t kUniqueBytes = 4;
inline constexpr std::size_t kLines = 5;
inline constexpr std::size_t kUniqueLines = 6;
inline constexpr std::size_t kReuseLoopMultipleRead = 7;
inline constexpr std::size_t kReuseSerialMultipleReadWrite = 8;
inline constexpr std::size_t kReuseNone = 9;
inline constexpr std::size_t kReuseDistanceIterations = 10;
inline constexpr std::size_t kReuseDistanceBytes = 11;
inline constexpr std::size_t kReuseCount = 12;
inline constexpr std::size_t kBytesPerReuse = 13;
inline constexpr std::size_t kUniqueBytesPerReuse = 14;
inline constexpr std::size_t kLinesPerReuse = 15;
inline constexpr std::size_t kUniqueLinesPerReuse = 16;
inline constexpr std::size_t kStride = 17;
constexpr std::size_t buffer(std::size_t slot, std::size_t offset) {
  return kBuffers + slot * kBufferFeatureCount + offset;
}

inline constexpr std::size_t kArithmeticIntensityCurve = 147;
inline constexpr std::size_t kArithmeticIntensitySamples = 10;

inline constexpr std::size_t kAllocationSize = 157;
inline constexpr std::size_t kAllocationProduct = 158;
inline constexpr std::size_t kAllocationOuterProduct = 159;
inline constexpr std::size_t kAllocationInnerProduct = 160;

inline constexpr std::size_t kOuterProduct = 161;
inline constexpr std::size_t kNumLoops = 162;
inline constexpr std::size_t kAutoUnrollMaxStep = 163;

static_assert(kBuffers == kParallel + 3 + kLoopPositionCount + 8);
static_assert(kArithmeticIntensityCurve == kBuffers + kBufferSlots * kBufferFeatureCount);
static_assert(kAllocationSize == kArithmeticIntensityCurve + kArithmeticIntensitySamples);
static_assert(kAutoUnrollMaxStep + 1 == kProgramFeatureCount);
} // namespace index

} // namespace clustune::features
