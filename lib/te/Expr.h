// The tensor-expression IR (DESIGN §4.3): scalar expressions over loop variables and tensor
// loads, as in TVM's te. One node type with a kind tag and a child list keeps every pass
// (printer, interpreter, bound inference, code generation) a single switch. Expressions are
// immutable and shared; a Var is identified by its node (pointer), never by its name.
#pragma once

#include "graph/Graph.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace clustune::te {

using graph::DataType;
using graph::Shape;

struct ExprNode;
struct VarNode;
struct TensorNode;
struct BufferNode;
using Expr = std::shared_ptr<const ExprNode>;
using Var = std::shared_ptr<const VarNode>;
using Tensor = std::shared_ptr<const TensorNode>;
using Buffer = std::shared_ptr<const BufferNode>;

enum class ExprKind {
  IntImm,
  FloatImm,
  Variable,
  // Arithmetic; Div is true division on floats and truncating division on integers.
  Add,
  Sub,
  Mul,
  Div,
  FloorDiv,
  FloorMod,
  Min,
  Max,
  // Comparisons and logic produce Bool.
  Equal,
  NotEqual,
  Less,
  LessEqual,
  Greater,
  GreaterEqual,
  And,
  Or,
  Not,
  Select,    // operands: condition, true value, false value
  Cast,      // operands: value; converts to dtype
  Call,      // operands: arguments of `function`
  Load,      // operands: one index per dimension of `tensor`
  Reduce,    // operands: source; combines source over `reduceAxes` with `reducer`
  BufferLoad // operands: one flat element index into `buffer` (after lowering)
};

// Fmod is C's fmod (the remainder of truncating division, with the dividend's sign); the
// trigonometric and hyperbolic functions are those of <cmath>.
enum class CallFunction {
  Exp,
  Log,
  Sqrt,
  Tanh,
  Erf,
  Sigmoid,
  Pow,
  Abs,
  Neg,
  Floor,
  Ceil,
  Round,
  Fmod,
  Sin,
  Cos,
  Tan,
  Asin,
  Acos,
  Atan,
  Sinh,
  Cosh,
  Asinh,
  Acosh,
  Atanh
};
enum class Reducer { Sum, Max, Min, Prod };

struct VarNode {
  std::string name; // for printing only
};

struct IterVar {
  Var var;
  std::int64_t extent = 0; // the variable ranges over [0, extent)
};

struct ExprNode {
  ExprKind kind;
  DataType dtype;
  std::int64_t intValue = 0; // IntImm
  double floatValue = 0.0;   // FloatImm
  Var var = {};              // Variable
  CallFunction function = CallFunction::Exp;
  Reducer reducer = Reducer::Sum;
  std::vector<IterVar> reduceAxes = {}; // Reduce
  Tensor tensor = {};                   // Load
  Buffer buffer = {};                   // BufferLoad
  std::vector<Expr> operands = {};
};

const char* exprKindName(ExprKind kind);
const char* callFunctionName(CallFunction function);
const char* reducerName(Reducer reducer);

// Builders. Integer immediates are folded (2 + 3 is 5, x * 1 is x, x + 0 is x), so index
// expressions stay small; floating-point expressions are never rewritten.
Var makeVar(std::string name);
Expr intImm(std::int64_t value, DataType dtype = DataType::Int64);
Expr floatImm(double value, DataType dtype = DataType::Float32);
Expr varExpr(const Var& var, DataType dtype = DataType::Int64);
Expr binary(ExprKind kind, Expr left, Expr right);
Expr select(Expr condition, Expr whenTrue, Expr whenFalse);
Expr cast(DataType dtype, Expr value);
Expr call(CallFunction function, std::vector<Expr> arguments);
Expr load(const Tensor& tensor, std::vector<Expr> indices);
Expr reduce(Reducer reducer, Expr source, std::vector<IterVar> axes);
Expr bufferLoad(const Buffer& buffer, Expr index);
Expr logicalNot(Expr value);

Expr operator+(Expr left, Expr right);
Expr operator-(Expr left, Expr right);
Expr operator*(Expr left, Expr right);
Expr operator/(Expr left, Expr right);
Expr floorDiv(Expr left, Expr right);
Expr floorMod(Expr left, Expr right);
Expr minimum(Expr left, Expr right);
Expr maximum(Expr left, Expr right);
Expr operator==(Expr left, Expr right);
Expr operator!=(Expr left, Expr right);
Expr operator<(Expr left, Expr right);
Expr operator<=(Expr left, Expr right);
Expr operator>(Expr left, Expr right);
Expr operator>=(Expr left, Expr right);
Expr operator&&(Expr left, Expr right);
Expr operator||(Expr left, Expr right);

bool isIntImm(const Expr& expr, std::int64_t value);
// The identity of a reduction: 0 for Sum, the lowest value for Max, the highest for Min, 1 for
// Prod.
Expr reducerIdentity(Reducer reducer, DataType dtype);

// A readable one-line rendering, e.g. "max(A[i0, i1], 0f)". Names are not unique; printing is
// for humans and tests, never for identity.
std::string toString(const Expr& expr);

} // namespace clustune::te
