// Lowerings of ONNX Gemm, MatMul and Einsum into compute stages, after TVM's topi dense and
// batch_matmul.
// The product is one Sum reduction over K, which must be the top of its stage body; Gemm's
// alpha, beta and C therefore go into a following element-wise stage, created only when they
// change the result, so that a plain Gemm is a single stage like MatMul.
#include "graph/Einsum.h"
#include "support/Error.h"
#include "te/topi/Common.h"

#include <algorithm>
#include <functional>
#include <map>

namespace clustune::te::topi {
namespace {

std::string describe(const Tensor& tensor) {
  return "[" + graph::shapeToString(tensor->shape) + "]";
}

// The task records the result shape too; a disagreement means the attributes or operand shapes
// are not what the importer inferred, and is reported before anything is built on it.
void requireResultShape(const OperatorContext& context, const Shape& computed) {
  if (outputShape(context) != computed)
    context.fail("the operands give output shape [" + graph::shapeToString(computed) +
                 "], the task records [" + graph::shapeToString(outputShape(context)) + "]");
}

// A Sum over k, or the bare product when K is 1 (an outer product has nothing to reduce).
Expr sumOverK(const std::string& stageName, std::int64_t extent,
              const std::function<Expr(const Expr& k)>& product) {
  if (extent == 1)
    return product(intImm(0));
  const IterVar k{makeVar(stageName + ".rk"), extent};
  return reduce(Reducer::Sum, product(varExpr(k.var)), {k});
}

std::vector<Tensor> lowerGemm(const OperatorContext& context) {
  requireOperands(context, 2, 3);
  requireOutputs(context, 1);
  const Tensor& a = context.operand(0);
  const Tensor& b = context.operand(1);
  if (a->shape.size() != 2 || b->shape.size() != 2)
    context.fail("expects matrices, got A " + describe(a) + " and B " + describe(b));
  if (a->dtype != b->dtype)
    context.fail("A and B have different dtypes");
  const bool transA = intAttribute(context, "transA") != 0;
  const bool transB = intAttribute(context, "transB") != 0;
  const double alpha = floatAttribute(context, "alpha");
  const double beta = floatAttribute(context, "beta");
  const std::int64_t rows = a->shape[transA ? 1 : 0];
  const std::int64_t depth = a->shape[transA ? 0 : 1];
  const std::int64_t columns = b->shape[transB ? 0 : 1];
  if (b->shape[transB ? 1 : 0] != depth)
    context.fail("inner dimensions differ: A " + describe(a) + (transA ? " transposed" : "") +
                 ", B " + describe(b) + (transB ? " transposed" : ""));
  const Shape resultShape = {rows, columns};
  requireResultShape(context, resultShape);

  const Tensor product =
      compute(context.stageName, resultShape, [&](const std::vector<Expr>& indices) {
        return sumOverK(context.stageName, depth, [&](const Expr& k) {
          const Expr aValue = transA ? load(a, {k, indices[0]}) : load(a, {indices[0], k});
          const Expr bValue = transB ? load(b, {indices[1], k}) : load(b, {k, indices[1]});
          return aValue * bValue;
        });
      });

  // beta * C with beta = 0 contributes nothing; skipping it also skips C's load.
  const bool addsC = context.hasOperand(2) && beta != 0.0;
  if (addsC) {
    const Tensor& c = context.operand(2);
    if (c->dtype != a->dtype)
      context.fail("C has a different dtype from A and B");
    requireBroadcastable(context, c->shape, resultShape);
  }
  if (alpha == 1.0 && !addsC)
    return {product};
  return {
      compute(context.stageName + ".epilogue", resultShape, [&](const std::vector<Expr>& indices) {
        Expr value = load(product, indices);
        if (alpha != 1.0)
          value = floatImm(alpha, a->dtype) * value;
        if (addsC) {
          // A single-element constant C (a scalar bias) is inlined.
          Expr c = broadcastOperand(context, 2, indices);
          if (beta != 1.0)
            c = floatImm(beta, a->dtype) * c;
          value = value + c;
        }
        return value;
      })};
}

// numpy matmul: a 1-D left operand is a row vector and a 1-D right operand a column vector, the
// added dimension being dropped from the result; leading (batch) dimensions broadcast.
std::vector<Tensor> lowerMatMul(const OperatorContext& context) {
  requireOperands(context, 2, 2);
  requireOutputs(context, 1);
  const Tensor& a = context.operand(0);
  const Tensor& b = context.operand(1);
  if (a->shape.empty() || b->shape.empty())
    context.fail("operands must have rank 1 or more, got " + describe(a) + " and " + describe(b));
  if (a->dtype != b->dtype)
    context.fail("operands have different dtypes");
  const bool aIsVector = a->shape.size() == 1;
  const bool bIsVector = b->shape.size() == 1;
  const std::int64_t depth = a->shape.back();
  const std::int64_t bDepth = bIsVector ? b->shape[0] : b->shape[b->shape.size() - 2];
  if (depth != bDepth)
    context.fail("inner dimensions differ: " + describe(a) + " and " + describe(b));
  const std::size_t aBatchRank = aIsVector ? 0 : a->shape.size() - 2;
  const std::size_t bBatchRank = bIsVector ? 0 : b->shape.size() - 2;
  const std::size_t batchRank = std::max(aBatchRank, bBatchRank);

  Shape resultShape(batchRank, 1);
  for (std::size_t axis = 0; axis < batchRank; ++axis) {
    const std::int64_t fromA =
        axis + aBatchRank >= batchRank ? a->shape[axis + aBatchRank - batchRank] : 1;
    const std::int64_t fromB =
        axis + bBatchRank >= batchRank ? b->shape[axis + bBatchRank - batchRank] : 1;
    if (fromA != fromB && fromA != 1 && fromB != 1)
      context.fail("batch dimensions do not broadcast: " + describe(a) + " and " + describe(b));
    resultShape[axis] = fromA == 1 ? fromB : fromA;
  }
  if (!aIsVector)
    resultShape.push_back(a->shape[a->shape.size() - 2]);
  if (!bIsVector)
    resultShape.push_back(b->shape.back());
  requireResultShape(context, resultShape);

  const Tensor product =
      compute(context.stageName, resultShape, [&](const std::vector<Expr>& indices) {
        const std::vector<Expr> batch(indices.begin(), indices.begin() + batchRank);
        std::size_t next = batchRank;
        const Expr row = aIsVector ? nullptr : indices[next++];
        const Expr column = bIsVector ? nullptr : indices[next++];
        return sumOverK(context.stageName, depth, [&](const Expr& k) {
          // Batch dimensions align at the right of the output's; a dimension of 1 repeats.
          std::vector<Expr> aIndex =
              broadcastIndices(Shape(a->shape.begin(), a->shape.begin() + aBatchRank), batch);
          std::vector<Expr> bIndex =
              broadcastIndices(Shape(b->shape.begin(), b->shape.begin() + bBatchRank), batch);
          if (!aIsVector)
            aIndex.push_back(row);
          aIndex.push_back(k);
          bIndex.push_back(k);
          if (!bIsVector)
            bIndex.push_back(column);
          return load(a, aIndex) * load(b, bIndex);
        });
      });
  return {product};
}

// Einsum: one stage whose spatial axes are the output labels and whose reduce axes are the other
// labels; the body multiplies one load per operand, indexed by the labels (a label repeated in
// one operand reads its diagonal; an ellipsis dimension of extent 1 broadcasts).
std::vector<Tensor> lowerEinsum(const OperatorContext& context) {
  requireOperands(context, 1, 64);
  requireOutputs(context, 1);
  std::vector<Shape> shapes;
  for (const Tensor& operand : context.operands) {
    if (!operand)
      context.fail("operands cannot be omitted");
    if (operand->dtype != context.operand(0)->dtype)
      context.fail("operands must have one dtype");
    shapes.push_back(operand->shape);
  }
  graph::EinsumEquation equation;
  try {
    equation = graph::parseEinsum(stringAttribute(context, "equation"), shapes);
  } catch (const Error& error) {
    context.fail(error.message());
  }
  Shape shape;
  for (int label : equation.outputLabels)
    shape.push_back(equation.extents.at(label));
  requireResultShape(context, shape);
  std::vector<IterVar> reduceAxes;
  std::map<int, Expr> reducedIndex;
  for (int label : equation.reducedLabels) {
    const std::int64_t extent = equation.extents.at(label);
    if (extent == 1) {
      reducedIndex[label] = intImm(0);
      continue;
    }
    reduceAxes.push_back(
        {makeVar(context.stageName + ".r" + std::to_string(reduceAxes.size())), extent});
    reducedIndex[label] = varExpr(reduceAxes.back().var);
  }
  return {compute(context.stageName, shape, [&](const std::vector<Expr>& indices) {
    std::map<int, Expr> index = reducedIndex;
    for (std::size_t axis = 0; axis < indices.size(); ++axis)
      index[equation.outputLabels[axis]] = indices[axis];
    Expr product;
    for (std::size_t operand = 0; operand < shapes.size(); ++operand) {
      std::vector<Expr> operandIndices;
      for (std::size_t axis = 0; axis < shapes[operand].size(); ++axis) {
        const int label = equation.operandLabels[operand][axis];
        operandIndices.push_back(shapes[operand][axis] == 1 ? intImm(0) : index.at(label));
      }
      const Expr value = load(context.operand(operand), operandIndices);
      product = product ? product * value : value;
    }
    return reduceAxes.empty() ? product : reduce(Reducer::Sum, product, reduceAxes);
  })};
}

} // namespace

void registerMatMulOperators(OperatorRegistry& registry) {
  registry["Gemm"] = lowerGemm;
  registry["MatMul"] = lowerMatMul;
  registry["Einsum"] = lowerEinsum;
}

} // namespace clustune::te::topi
