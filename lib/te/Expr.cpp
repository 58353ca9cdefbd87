// See Expr.h.
#include "te/Expr.h"

#include "te/Stmt.h"
#include "te/Tensor.h"

#include <array>
#include <cassert>
#include <cmath>
#include <limits>
#include <sstream>

namespace clustune::te {
namespace {

Expr makeNode(ExprNode node) {
  return std::make_shared<const ExprNode>(std::move(node));
}

bool isImmediate(const Expr& expr) {
  return expr->kind == ExprKind::IntImm || expr->kind == ExprKind::FloatImm;
}

// Re-expresses an immediate in another dtype so that `x + 1` works for float x.
Expr convertImmediate(const Expr& immediate, DataType dtype) {
  const double value = immediate->kind == ExprKind::IntImm
                           ? static_cast<double>(immediate->intValue)
                           : immediate->floatValue;
  if (graph::isFloatingPoint(dtype))
    return floatImm(value, dtype);
  return intImm(static_cast<std::int64_t>(value), dtype);
}

void unifyTypes(Expr& left, Expr& right) {
  if (left->dtype == right->dtype)
    return;
  if (isImmediate(right))
    right = convertImmediate(right, left->dtype);
  else if (isImmediate(left))
    left = convertImmediate(left, right->dtype);
  assert(left->dtype == right->dtype && "mixed dtypes need an explicit cast");
}

bool isComparison(ExprKind kind) {
  return kind >= ExprKind::Equal && kind <= ExprKind::GreaterEqual;
}

std::int64_t floorDivide(std::int64_t a, std::int64_t b) {
  std::int64_t quotient = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --quotient;
  return quotient;
}

// Folds integer immediates and the identities that index arithmetic produces.
Expr foldInteger(ExprKind kind, const Expr& left, const Expr& right) {
  if (graph::isFloatingPoint(left->dtype) || left->dtype == DataType::Bool)
    return nullptr;
  const bool leftConstant = left->kind == ExprKind::IntImm;
  const bool rightConstant = right->kind == ExprKind::IntImm;
  if (leftConstant && rightConstant) {
    const std::int64_t a = left->intValue, b = right->intValue;
    switch (kind) {
    case ExprKind::Add:
      return intImm(a + b, left->dtype);
    case ExprKind::Sub:
      return intImm(a - b, left->dtype);
    case ExprKind::Mul:
      return intImm(a * b, left->dtype);
    case ExprKind::FloorDiv:
      return b != 0 ? intImm(floorDivide(a, b), left->dtype) : nullptr;
    case ExprKind::FloorMod:
      return b != 0 ? intImm(a - floorDivide(a, b) * b, left->dtype) : nullptr;
    case ExprKind::Min:
      return intImm(std::min(a, b), left->dtype);
    case ExprKind::Max:
      return intImm(std::max(a, b), left->dtype);
    default:
      return nullptr;
    }
  }
  switch (kind) {
  case ExprKind::Add:
    if (isIntImm(right, 0))
      return left;
    if (isIntImm(left, 0))
      return right;
    break;
  case ExprKind::Sub:
    if (isIntImm(right, 0))
      return left;
    break;
  case ExprKind::Mul:
    if (isIntImm(right, 1))
      return left;
    if (isIntImm(left, 1))
      return right;
    if (isIntImm(right, 0) || isIntImm(left, 0))
      return intImm(0, left->dtype);
    break;
  case ExprKind::FloorDiv:
  case ExprKind::Div:
    if (isIntImm(right, 1))
      return left;
    break;
  case ExprKind::FloorMod:
    if (isIntImm(right, 1))
      return intImm(0, left->dtype);
    break;
  default:
    break;
  }
  return nullptr;
}

} // namespace

const char* exprKindName(ExprKind kind) {
  static const char* const names[] = {
      "IntImm",    "FloatImm", "Variable",     "Add",    "Sub",       "Mul",      "Div",
      "FloorDiv",  "FloorMod", "Min",          "Max",    "Equal",     "NotEqual", "Less",
      "LessEqual", "Greater",  "GreaterEqual", "And",    "Or",        "Not",      "Select",
      "Cast",      "Call",     "Load",         "Reduce", "BufferLoad"};
  return names[static_cast<int>(kind)];
}

const char* callFunctionName(CallFunction function) {
  static const char* const names[] = {"exp",  "log",  "sqrt", "tanh",  "erf",   "sigmoid",
                                      "pow",  "abs",  "neg",  "floor", "ceil",  "round",
                                      "fmod", "sin",  "cos",  "tan",   "asin",  "acos",
                                      "atan", "sinh", "cosh", "asinh", "acosh", "atanh"};
  return names[static_cast<int>(function)];
}

const char* reducerName(Reducer reducer) {
  static const char* const names[] = {"sum", "max", "min", "prod"};
  return names[static_cast<int>(reducer)];
}

Var makeVar(std::string name) {
  return std::make_shared<const VarNode>(VarNode{std::move(name)});
}

Expr intImm(std::int64_t value, DataType dtype) {
  // Lowering asks for the same small index constants and booleans hundreds of times per
  // candidate, and the search lowers thousands of candidates a round: each thread shares one
  // node per value instead of allocating it again. Per thread, so that two threads lowering at
  // once do not contend for one reference count.
  constexpr std::int64_t kLow = -16, kHigh = 256;
  if ((dtype == DataType::Int64 || dtype == DataType::Bool) && value >= kLow && value < kHigh) {
    thread_local std::array<Expr, kHigh - kLow> int64s, bools;
    Expr& shared = (dtype == DataType::Int64 ? int64s : bools)[value - kLow];
    if (!shared)
      shared = makeNode({.kind = ExprKind::IntImm, .dtype = dtype, .intValue = value});
    return shared;
  }
  return makeNode({.kind = ExprKind::IntImm, .dtype = dtype, .intValue = value});
}

Expr floatImm(double value, DataType dtype) {
  return makeNode({.kind = ExprKind::FloatImm, .dtype = dtype, .floatValue = value});
}

Expr varExpr(const Var& var, DataType dtype) {
  return makeNode({.kind = ExprKind::Variable, .dtype = dtype, .var = var});
}

Expr binary(ExprKind kind, Expr left, Expr right) {
  unifyTypes(left, right);
  if (Expr folded = foldInteger(kind, left, right))
    return folded;
  const DataType dtype = isComparison(kind) ? DataType::Bool : left->dtype;
  // Moved in rather than listed in braces: an initializer list copies its elements, and every
  // copy of an Expr is an atomic reference count.
  std::vector<Expr> operands;
  operands.reserve(2);
  operands.push_back(std::move(left));
  operands.push_back(std::move(right));
  return makeNode({.kind = kind, .dtype = dtype, .operands = std::move(operands)});
}

Expr select(Expr condition, Expr whenTrue, Expr whenFalse) {
  assert(condition->dtype == DataType::Bool);
  unifyTypes(whenTrue, whenFalse);
  if (condition->kind == ExprKind::IntImm)
    return condition->intValue ? whenTrue : whenFalse;
  const DataType dtype = whenTrue->dtype;
  return makeNode({.kind = ExprKind::Select,
                   .dtype = dtype,
                   .operands = {std::move(condition), std::move(whenTrue), std::move(whenFalse)}});
}

Expr cast(DataType dtype, Expr value) {
  if (value->dtype == dtype)
    return value;
  if (isImmediate(value) && dtype != DataType::Bool)
    return convertImmediate(value, dtype);
  return makeNode({.kind = ExprKind::Cast, .dtype = dtype, .operands = {std::move(value)}});
}

Expr call(CallFunction function, std::vector<Expr> arguments) {
  assert(!arguments.empty());
  if (function == CallFunction::Pow || function == CallFunction::Fmod)
    unifyTypes(arguments[0], arguments[1]);
  const DataType dtype = arguments[0]->dtype;
  return makeNode({.kind = ExprKind::Call,
                   .dtype = dtype,
                   .function = function,
                   .operands = std::move(arguments)});
}

Expr load(const Tensor& tensor, std::vector<Expr> indices) {
  assert(indices.size() == tensor->shape.size());
  return makeNode({.kind = ExprKind::Load,
                   .dtype = tensor->dtype,
                   .tensor = tensor,
                   .operands = std::move(indices)});
}

Expr reduce(Reducer reducer, Expr source, std::vector<IterVar> axes) {
  const DataType dtype = source->dtype;
  return makeNode({.kind = ExprKind::Reduce,
                   .dtype = dtype,
                   .reducer = reducer,
                   .reduceAxes = std::move(axes),
                   .operands = {std::move(source)}});
}

Expr bufferLoad(const Buffer& buffer, Expr index) {
  return makeNode({.kind = ExprKind::BufferLoad,
                   .dtype = buffer->dtype,
                   .buffer = buffer,
                   .operands = {std::move(index)}});
}

Expr logicalNot(Expr value) {
  assert(value->dtype == DataType::Bool);
  return makeNode({.kind = ExprKind::Not, .dtype = DataType::Bool, .operands = {std::move(value)}});
}

Expr operator+(Expr left, Expr right) {
  return binary(ExprKind::Add, std::move(left), std::move(right));
}
Expr operator-(Expr left, Expr right) {
  return binary(ExprKind::Sub, std::move(left), std::move(right));
}
Expr operator*(Expr left, Expr right) {
  return binary(ExprKind::Mul, std::move(left), std::move(right));
}
Expr operator/(Expr left, Expr right) {
  return binary(ExprKind::Div, std::move(left), std::move(right));
}
Expr floorDiv(Expr left, Expr right) {
  return binary(ExprKind::FloorDiv, std::move(left), std::move(right));
}
Expr floorMod(Expr left, Expr right) {
  return binary(ExprKind::FloorMod, std::move(left), std::move(right));
}
Expr minimum(Expr left, Expr right) {
  return binary(ExprKind::Min, std::move(left), std::move(right));
}
Expr maximum(Expr left, Expr right) {
  return binary(ExprKind::Max, std::move(left), std::move(right));
}
Expr operator==(Expr left, Expr right) {
  return binary(ExprKind::Equal, std::move(left), std::move(right));
}
Expr operator!=(Expr left, Expr right) {
  return binary(ExprKind::NotEqual, std::move(left), std::move(right));
}
Expr operator<(Expr left, Expr right) {
  return binary(ExprKind::Less, std::move(left), std::move(right));
}
Expr operator<=(Expr left, Expr right) {
  return binary(ExprKind::LessEqual, std::move(left), std::move(right));
}
Expr operator>(Expr left, Expr right) {
  return binary(ExprKind::Greater, std::move(left), std::move(right));
}
Expr operator>=(Expr left, Expr right) {
  return binary(ExprKind::GreaterEqual, std::move(left), std::move(right));
}
Expr operator&&(Expr left, Expr right) {
  return binary(ExprKind::And, std::move(left), std::move(right));
}
Expr operator||(Expr left, Expr right) {
  return binary(ExprKind::Or, std::move(left), std::move(right));
}

bool isIntImm(const Expr& expr, std::int64_t value) {
  return expr->kind == ExprKind::IntImm && expr->intValue == value;
}

Expr reducerIdentity(Reducer reducer, DataType dtype) {
  const bool floating = graph::isFloatingPoint(dtype);
  switch (reducer) {
  case Reducer::Sum:
    return floating ? floatImm(0.0, dtype) : intImm(0, dtype);
  case Reducer::Max:
    return floating ? floatImm(-std::numeric_limits<double>::infinity(), dtype)
                    : intImm(std::numeric_limits<std::int64_t>::min(), dtype);
  case Reducer::Min:
    return floating ? floatImm(std::numeric_limits<double>::infinity(), dtype)
                    : intImm(std::numeric_limits<std::int64_t>::max(), dtype);
  case Reducer::Prod:
    return floating ? floatImm(1.0, dtype) : intImm(1, dtype);
  }
  return floatImm(0.0, dtype);
}

std::string toString(const Expr& expr) {
  std::ostringstream text;
  auto operand = [&](int i) { return toString(expr->operands[i]); };
  auto infix = [&](const char* symbol) {
    text << '(' << operand(0) << ' ' << symbol << ' ' << operand(1) << ')';
  };
  switch (expr->kind) {
  case ExprKind::IntImm:
    text << expr->intValue;
    break;
  case ExprKind::FloatImm:
    text << expr->floatValue << 'f';
    break;
  case ExprKind::Variable:
    text << expr->var->name;
    break;
  case ExprKind::Add:
    infix("+");
    break;
  case ExprKind::Sub:
    infix("-");
    break;
  case ExprKind::Mul:
    infix("*");
    break;
  case ExprKind::Div:
    infix("/");
    break;
  case ExprKind::FloorDiv:
    infix("//");
    break;
  case ExprKind::FloorMod:
    infix("%");
    break;
  case ExprKind::Equal:
    infix("==");
    break;
  case ExprKind::NotEqual:
    infix("!=");
    break;
  case ExprKind::Less:
    infix("<");
    break;
  case ExprKind::LessEqual:
    infix("<=");
    break;
  case ExprKind::Greater:
    infix(">");
    break;
  case ExprKind::GreaterEqual:
    infix(">=");
    break;
  case ExprKind::And:
    infix("&&");
    break;
  case ExprKind::Or:
    infix("||");
    break;
  case ExprKind::Min:
    text << "min(" << operand(0) << ", " << operand(1) << ')';
    break;
  case ExprKind::Max:
    text << "max(" << operand(0) << ", " << operand(1) << ')';
    break;
  case ExprKind::Not:
    text << '!' << operand(0);
    break;
  case ExprKind::Select:
    text << "select(" << operand(0) << ", " << operand(1) << ", " << operand(2) << ')';
    break;
  case ExprKind::Cast:
    text << graph::dataTypeName(expr->dtype) << '(' << operand(0) << ')';
    break;
  case ExprKind::Call:
    text << callFunctionName(expr->function) << '(';
    for (std::size_t i = 0; i < expr->operands.size(); ++i)
      text << (i ? ", " : "") << operand(static_cast<int>(i));
    text << ')';
    break;
  case ExprKind::Load:
    text << expr->tensor->name << '[';
    for (std::size_t i = 0; i < expr->operands.size(); ++i)
      text << (i ? ", " : "") << operand(static_cast<int>(i));
    text << ']';
    break;
  case ExprKind::Reduce:
    text << reducerName(expr->reducer) << '(' << operand(0) << ", axes=[";
    for (std::size_t i = 0; i < expr->reduceAxes.size(); ++i)
      text << (i ? ", " : "") << expr->reduceAxes[i].var->name << ':' << expr->reduceAxes[i].extent;
    text << "])";
    break;
  case ExprKind::BufferLoad:
    text << expr->buffer->name << '[' << operand(0) << ']';
    break;
  }
  return text.str();
}

} // namespace clustune::te
