// Floating-point operation counts per graph node. A task's FLOPs (the sum over its nodes) feed the
// GAE node features, the task scheduler's throughput estimates and the reports; the conventions
// are fixed so that scripts/count_flops.py, an independent counter working on the ONNX file,
// agrees with the partitioner within 1% per model. Change both together or neither.
#pragma once

#include "graph/Graph.h"
#include "graph/Task.h"

#include <cstdint>
#include <string>
#include <vector>

namespace clustune::graph {

// Counts a multiply-add as 2 operations. Conventions (shapes are the node's static shapes):
//   Conv           2*N*Cout*prod(out spatial)*(Cin/groups)*prod(kernel) [+ out elements if bias]
//   ConvTranspose  2*N*Cin*prod(in spatial)*weight.shape[1]*prod(kernel) [+ out elements if bias]
//   Gemm           2*M*N*K [+ M*N if C];  MatMul 2*prod(broadcast batch)*M*N*K (numpy 1-D rules)
//   BatchNormalization 2 per output element; Softmax/LogSoftmax 3, Hardmax 2 and
//     LayerNormalization/InstanceNormalization 7 per input element
//   Einsum  prod(every label's extent) * (operands - 1), plus that product when a label is
//     summed (graph/Einsum.h): 2*B*M*N*K for a batched matmul, 0 for a transpose
//   LRN (2*size + 4) and MeanVarianceNormalization 6 per input element
//   element-wise (registry pattern ElemWise or Broadcast, except Cast, CastLike, Identity and
//     Dropout): 1 per output element when the output is floating point, else 0 (shape
//     arithmetic is free)
//   MaxPool/AveragePool  output elements * prod(kernel_shape)
//   GlobalAveragePool/GlobalMaxPool, ReduceMean/Sum/Max/Min/LogSum/Prod, ArgMax/ArgMin,
//     CumSum, TopK  input elements
//   ReduceL1/L2/SumSquare 2 and ReduceLogSumExp 3 per input element
//   everything else (layout ops, Opaque)  0
std::int64_t nodeFlops(const Graph& graph, const Node& node);
// The same rules for a node of a task, whose operands are task inputs or earlier task nodes.
std::int64_t nodeFlops(const Task& task, const TaskNode& node);

// What the rules above read, wherever the node lives: both nodeFlops overloads build one of these.
struct OperatorShapes {
  const std::string* op = nullptr;
  const Attributes* attributes = nullptr;
  std::vector<const Shape*> inputs = {}; // nullptr for an omitted optional operand
  const Shape* output = nullptr;         // the first output
  DataType outputType = DataType::Float32;
};
std::int64_t operatorFlops(const OperatorShapes& shapes);

// The matrix product a MatMul or Gemm computes: batch × ([m, k] · [k, n]).
struct MatrixProduct {
  std::int64_t batch = 1; // product of the broadcast batch dimensions; 1 for Gemm
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
};
// MatMul with numpy's rules: a 1-D left operand is a row vector, a 1-D right one a column vector.
MatrixProduct matMulProduct(Shape a, Shape b);
MatrixProduct gemmProduct(const Shape& a, const Shape& b, bool transposeA, bool transposeB);

} // namespace clustune::graph
