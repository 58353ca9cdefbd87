// Task tags: a few flags describing what kind of computation a task is, appended to every
// statement's program features. Tenset's MLP adds nine such "workload tags" (REFERENCES.md) so
// that one model can tell a convolution's loop nest from a matmul's with similar statistics;
// these are clustune's equivalents, read from the task's operators (docs/features.md).
#pragma once

#include "graph/Task.h"

#include <array>
#include <cstddef>

namespace clustune::costmodel {

enum class TaskTag {
  Convolution, // Conv or ConvTranspose
  DepthwiseConvolution,
  GroupedConvolution, // 1 < group < input channels
  Dense,              // Gemm, or MatMul of 2-D operands
  BatchedMatMul,      // MatMul with a batch dimension
  Softmax,
  Normalisation,    // LayerNormalization and explicit reductions
  Pooling,          // MaxPool, AveragePool, GlobalAveragePool
  DataMovementOnly, // no arithmetic: reshapes, concatenations, transposes, gathers
};
inline constexpr std::size_t kTaskTagCount = 9;

std::array<float, kTaskTagCount> taskTags(const graph::Task& task);

} // namespace clustune::costmodel
