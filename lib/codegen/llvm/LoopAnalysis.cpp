// See LoopAnalysis.h.
#include "codegen/llvm/LoopAnalysis.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <set>

namespace clustune::codegen {
namespace {

using te::Expr;
using te::ExprKind;
using te::Stmt;
using te::StmtKind;

// Calls visit on every expression node of the tree, parents before children.
void forEachNode(const Expr& expr, const std::function<void(const te::ExprNode&)>& visit) {
  visit(*expr);
  for (const Expr& operand : expr->operands)
    forEachNode(operand, visit);
}

// An integer division whose divisor is not a non-zero constant.
bool mayDivideByZero(const te::ExprNode& node) {
  const bool integerDivision = (node.kind == ExprKind::Div || node.kind == ExprKind::FloorDiv ||
                                node.kind == ExprKind::FloorMod) &&
                               !graph::isFloatingPoint(node.dtype);
  if (!integerDivision)
    return false;
  const Expr& divisor = node.operands[1];
  return divisor->kind != ExprKind::IntImm || divisor->intValue == 0;
}

// Calls visit on the root of every expression a statement tree holds.
void forEachExpr(const Stmt& stmt, const std::function<void(const Expr&)>& visit) {
  if (!stmt)
    return;
  switch (stmt->kind) {
  case StmtKind::For:
  case StmtKind::Allocate:
    forEachExpr(stmt->body, visit);
    break;
  case StmtKind::Store:
    visit(stmt->index);
    visit(stmt->value);
    break;
  case StmtKind::IfThenElse:
    visit(stmt->condition);
    forEachExpr(stmt->body, visit);
    forEachExpr(stmt->elseBody, visit);
    break;
  case StmtKind::Sequence:
    for (const Stmt& child : stmt->sequence)
      forEachExpr(child, visit);
    break;
  case StmtKind::Barrier:
    break;
  }
}

void forEachStmt(const Stmt& stmt, const std::function<void(const te::StmtNode&)>& visit) {
  if (!stmt)
    return;
  visit(*stmt);
  forEachStmt(stmt->body, visit);
  forEachStmt(stmt->elseBody, visit);
  for (const Stmt& child : stmt->sequence)
    forEachStmt(child, visit);
}

std::optional<std::int64_t> checkedMultiply(std::int64_t a, std::int64_t b) {
  std::int64_t product;
  if (__builtin_mul_overflow(a, b, &product))
    return std::nullopt;
  return product;
}

std::int64_t saturatingMultiply(std::int64_t a, std::int64_t b) {
  return checkedMultiply(a, b).value_or(std::numeric_limits<std::int64_t>::max());
}

std::int64_t saturatingAdd(std::int64_t a, std::int64_t b) {
  std::int64_t sum;
  return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<std::int64_t>::max() : sum;
}

bool isIntegerCast(const te::ExprNode& node) {
  return node.kind == ExprKind::Cast && !graph::isFloatingPoint(node.dtype) &&
         !graph::isFloatingPoint(node.operands[0]->dtype) && node.dtype != graph::DataType::Bool;
}

} // namespace

bool dependsOn(const Expr& expr, const te::VarNode* var) {
  if (expr->kind == ExprKind::Variable && expr->var.get() == var)
    return true;
  for (const te::IterVar& axis : expr->reduceAxes)
    if (axis.var.get() == var)
      return true;
  return std::any_of(expr->operands.begin(), expr->operands.end(),
                     [&](const Expr& operand) { return dependsOn(operand, var); });
}

bool isNonNegative(const Expr& expr) {
  const te::ExprNode& node = *expr;
  const auto operandsNonNegative = [&] {
    return std::all_of(node.operands.begin(), node.operands.end(), isNonNegative);
  };
  switch (node.kind) {
  case ExprKind::IntImm:
    return node.intValue >= 0;
  case ExprKind::Variable:
    return true;
  case ExprKind::Add:
  case ExprKind::Mul:
  case ExprKind::Min:
  case ExprKind::Max:
    return !graph::isFloatingPoint(node.dtype) && operandsNonNegative();
  case ExprKind::FloorDiv:
  case ExprKind::FloorMod:
    return !graph::isFloatingPoint(node.dtype) && node.operands[1]->kind == ExprKind::IntImm &&
           node.operands[1]->intValue > 0 && isNonNegative(node.operands[0]);
  case ExprKind::Select:
    return isNonNegative(node.operands[1]) && isNonNegative(node.operands[2]);
  case ExprKind::Cast: {
    const graph::DataType from = node.operands[0]->dtype;
    const bool widening = graph::dataTypeBytes(from) <= graph::dataTypeBytes(node.dtype);
    return !graph::isFloatingPoint(from) && !graph::isFloatingPoint(node.dtype) &&
           from != graph::DataType::Bool && widening && isNonNegative(node.operands[0]);
  }
  default:
    return false;
  }
}

std::int64_t knownMultiple(const Expr& index, const te::VarNode* laneVar, std::int64_t width) {
  constexpr std::int64_t kCap = std::int64_t{1} << 20;
  switch (index->kind) {
  case ExprKind::IntImm:
    return std::min(std::abs(index->intValue), kCap);
  case ExprKind::Variable:
    return index->var.get() == laneVar ? width : 1;
  case ExprKind::Add:
  case ExprKind::Sub:
    return std::gcd(knownMultiple(index->operands[0], laneVar, width),
                    knownMultiple(index->operands[1], laneVar, width));
  case ExprKind::Mul:
    return std::min(knownMultiple(index->operands[0], laneVar, width) *
                        knownMultiple(index->operands[1], laneVar, width),
                    kCap);
  case ExprKind::FloorMod: // a - b·floor(a/b): a multiple of what divides both
    return std::gcd(knownMultiple(index->operands[0], laneVar, width),
                    knownMultiple(index->operands[1], laneVar, width));
  default:
    return 1;
  }
}

namespace {

// linearCoefficient, and with `width` > 0 laneCoefficient: the lanes' rule for floordiv and
// floormod is the only difference.
std::optional<std::int64_t> coefficient(const Expr& expr, const te::VarNode* var,
                                        std::int64_t width) {
  switch (expr->kind) {
  case ExprKind::IntImm:
    return 0;
  case ExprKind::Variable:
    return expr->var.get() == var ? 1 : 0;
  case ExprKind::Add:
  case ExprKind::Sub: {
    const auto left = coefficient(expr->operands[0], var, width);
    const auto right = coefficient(expr->operands[1], var, width);
    if (!left || !right)
      return std::nullopt;
    return expr->kind == ExprKind::Add ? *left + *right : *left - *right;
  }
  case ExprKind::Mul: {
    const Expr& a = expr->operands[0];
    const Expr& b = expr->operands[1];
    const auto left = coefficient(a, var, width);
    const auto right = coefficient(b, var, width);
    if (!left || !right)
      return std::nullopt;
    if (*left == 0 && *right == 0)
      return 0;
    if (*left == 0 && a->kind == ExprKind::IntImm)
      return checkedMultiply(a->intValue, *right);
    if (*right == 0 && b->kind == ExprKind::IntImm)
      return checkedMultiply(*left, b->intValue);
    return std::nullopt;
  }
  case ExprKind::FloorDiv:
  case ExprKind::FloorMod: {
    if (!dependsOn(expr, var))
      return 0;
    // a = a0 + lane with a0 a multiple of the width, divided by a multiple of the width: all
    // lanes share a0's quotient, and the remainders are a0's plus the lane.
    const Expr& dividend = expr->operands[0];
    const Expr& divisor = expr->operands[1];
    if (width > 0 && divisor->kind == ExprKind::IntImm && divisor->intValue > 0 &&
        divisor->intValue % width == 0 && coefficient(dividend, var, width) == 1 &&
        knownMultiple(dividend, var, width) % width == 0)
      return expr->kind == ExprKind::FloorDiv ? 0 : 1;
    return std::nullopt;
  }
  default:
    // Widening or narrowing an index keeps its coefficient as long as it does not wrap, which
    // holds for indices into buffers that fit in memory.
    if (isIntegerCast(*expr))
      return coefficient(expr->operands[0], var, width);
    if (!dependsOn(expr, var))
      return 0;
    return std::nullopt;
  }
}

} // namespace

std::optional<std::int64_t> linearCoefficient(const Expr& expr, const te::VarNode* var) {
  return coefficient(expr, var, 0);
}

std::optional<std::int64_t> laneCoefficient(const Expr& expr, const te::VarNode* laneVar,
                                            std::int64_t width) {
  return coefficient(expr, laneVar, width);
}

bool structurallyEqual(const Expr& left, const Expr& right) {
  // Compare node addresses: te's operator== on Expr builds an Equal expression.
  if (left.get() == right.get())
    return true;
  if (left->kind != right->kind || left->dtype != right->dtype ||
      left->intValue != right->intValue || left->var != right->var ||
      left->function != right->function || left->buffer != right->buffer ||
      left->tensor != right->tensor || left->operands.size() != right->operands.size())
    return false;
  if (left->kind == ExprKind::FloatImm && left->floatValue != right->floatValue)
    return false;
  if (left->kind == ExprKind::Reduce) // not in lowered code; compare conservatively
    return false;
  for (std::size_t i = 0; i < left->operands.size(); ++i)
    if (!structurallyEqual(left->operands[i], right->operands[i]))
      return false;
  return true;
}

bool mayTrap(const Expr& expr) {
  bool trap = false;
  forEachNode(expr, [&](const te::ExprNode& node) {
    if (node.kind == ExprKind::BufferLoad || node.kind == ExprKind::Load || mayDivideByZero(node))
      trap = true;
  });
  return trap;
}

bool isLoadChoice(const Expr& expr) {
  if (expr->kind == ExprKind::BufferLoad)
    return !mayTrap(expr->operands[0]);
  if (expr->kind != ExprKind::Select)
    return false;
  // Only the outermost condition is evaluated where the program evaluates the expression
  // anyway; the inner ones are evaluated whichever side is chosen.
  for (const Expr& side : {expr->operands[1], expr->operands[2]})
    if ((side->kind == ExprKind::Select && mayTrap(side->operands[0])) || !isLoadChoice(side))
      return false;
  return true;
}

std::string vectorizationBlocker(const te::StmtNode& loop) {
  const te::VarNode* lane = loop.loopVar.get();
  std::string blocker;
  forEachStmt(loop.body, [&](const te::StmtNode& stmt) {
    if (!blocker.empty())
      return;
    if (stmt.kind == StmtKind::Allocate)
      blocker = "it allocates " + stmt.buffer->name + " per iteration";
    else if (stmt.kind == StmtKind::For && stmt.forKind == te::ForKind::Parallel)
      blocker = "it contains the parallel loop " + stmt.loopVar->name;
    else if (stmt.kind == StmtKind::For && stmt.forKind == te::ForKind::Vectorized)
      blocker = "it contains the vectorized loop " + stmt.loopVar->name;
  });
  if (!blocker.empty())
    return blocker;

  struct Accesses {
    std::vector<Expr> indices;
    bool loaded = false;
    bool stored = false;
  };
  std::map<const te::BufferNode*, Accesses> accesses;
  std::vector<const te::BufferNode*> order; // deterministic messages
  const auto record = [&](const te::Buffer& buffer, const Expr& index, bool isStore) {
    auto [entry, inserted] = accesses.try_emplace(buffer.get());
    if (inserted)
      order.push_back(buffer.get());
    entry->second.indices.push_back(index);
    (isStore ? entry->second.stored : entry->second.loaded) = true;
  };
  const auto recordLoads = [&](const Expr& root) {
    forEachNode(root, [&](const te::ExprNode& node) {
      if (node.kind == ExprKind::BufferLoad)
        record(node.buffer, node.operands[0], false);
    });
  };
  forEachStmt(loop.body, [&](const te::StmtNode& stmt) {
    if (stmt.kind == StmtKind::Store)
      record(stmt.buffer, stmt.index, true);
  });
  forEachExpr(loop.body, recordLoads);

  for (const te::BufferNode* buffer : order) {
    const Accesses& access = accesses.at(buffer);
    if (!access.stored)
      continue;
    for (const Expr& index : access.indices)
      if (!structurallyEqual(index, access.indices.front()))
        return buffer->name + " is accessed at different indices (" +
               te::toString(access.indices.front()) + " and " + te::toString(index) + ")";
    if (access.loaded && !dependsOn(access.indices.front(), lane))
      return buffer->name + " is read and written at an index that does not depend on " +
             loop.loopVar->name + " (a reduction over the vectorized loop)";
  }
  return {};
}

std::int64_t unrollStepCount(const Stmt& stmt) {
  if (!stmt)
    return 0;
  switch (stmt->kind) {
  case StmtKind::Store:
    return 1;
  case StmtKind::For: {
    const std::int64_t body = unrollStepCount(stmt->body);
    return stmt->forKind == te::ForKind::Vectorized ? body : saturatingMultiply(stmt->extent, body);
  }
  case StmtKind::Allocate:
    return unrollStepCount(stmt->body);
  case StmtKind::IfThenElse:
    return std::max(unrollStepCount(stmt->body), unrollStepCount(stmt->elseBody));
  case StmtKind::Sequence: {
    std::int64_t total = 0;
    for (const Stmt& child : stmt->sequence)
      total = saturatingAdd(total, unrollStepCount(child));
    return total;
  }
  case StmtKind::Barrier:
    return 1;
  }
  return 0;
}

UsedValues collectUsedValues(const Stmt& stmt) {
  UsedValues used;
  std::set<const te::VarNode*> seenVars;
  std::set<const te::BufferNode*> seenBuffers;
  const auto addBuffer = [&](const te::Buffer& buffer) {
    if (seenBuffers.insert(buffer.get()).second)
      used.buffers.push_back(buffer);
  };
  const auto addVar = [&](const te::VarNode* var) {
    if (seenVars.insert(var).second)
      used.vars.push_back(var);
  };
  forEachStmt(stmt, [&](const te::StmtNode& node) {
    if (node.kind == StmtKind::For)
      addVar(node.loopVar.get());
    if (node.kind == StmtKind::Store || node.kind == StmtKind::Allocate)
      addBuffer(node.buffer);
  });
  forEachExpr(stmt, [&](const Expr& root) {
    forEachNode(root, [&](const te::ExprNode& node) {
      if (node.kind == ExprKind::Variable)
        addVar(node.var.get());
      if (node.kind == ExprKind::BufferLoad)
        addBuffer(node.buffer);
    });
  });
  return used;
}

} // namespace clustune::codegen
