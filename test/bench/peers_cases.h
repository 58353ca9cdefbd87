// The cases bench-peers measures: a task with its FLOP count and the shape that the
// hand-picked schedules and the peer libraries need.
#pragma once

#include "graph/Task.h"

#include <cstdint>
#include <string>
#include <vector>

namespace clustune::bench {

struct ConvShape {
  std::int64_t channels = 0, filters = 0, height = 0, width = 0, kernel = 1, stride = 1, pad = 0;
  std::int64_t outHeight = 0, outWidth = 0;
  bool bias = false, residual = false, relu = false;
};

struct Case {
  std::string name;
  graph::Task task;
  double flops = 0;
  bool isConv = false;
  std::int64_t m = 0, n = 0, k = 0; // the GEMM (for a conv: the 1x1 conv as a GEMM)
  ConvShape conv;
};

// Y = MatMul(A[n, n], B[n, n]), as the partitioner makes it from an ONNX MatMul.
Case gemmCase(std::int64_t n);

// The resnet50 Conv tasks of a tasks.jsonl: the 3x3 and 1x1 convolutions with square kernels,
// stride and padding, one case per distinct key.
std::vector<Case> convCases(const std::string& path);

} // namespace clustune::bench
