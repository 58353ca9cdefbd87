// See ExprUtil.h.
#include "schedule/ExprUtil.h"

#include <array>
#include <cassert>
#include <cstring>
#include <unordered_set>

namespace clustune::schedule {

using namespace te;

Expr withOperands(const Expr& expr, std::vector<Expr> operands) {
  bool changed = false;
  for (std::size_t i = 0; i < operands.size(); ++i)
    changed = changed || operands[i].get() != expr->operands[i].get();
  if (!changed)
    return expr;
  switch (expr->kind) {
  case ExprKind::IntImm:
  case ExprKind::FloatImm:
  case ExprKind::Variable:
    return expr;
  case ExprKind::Not:
    return logicalNot(operands[0]);
  case ExprKind::Select:
    return select(operands[0], operands[1], operands[2]);
  case ExprKind::Cast:
    return cast(expr->dtype, operands[0]);
  case ExprKind::Call:
    return call(expr->function, std::move(operands));
  case ExprKind::Load:
    return load(expr->tensor, std::move(operands));
  case ExprKind::Reduce:
    return reduce(expr->reducer, operands[0], expr->reduceAxes);
  case ExprKind::BufferLoad:
    return bufferLoad(expr->buffer, operands[0]);
  default:
    assert(operands.size() == 2);
    return binary(expr->kind, operands[0], operands[1]);
  }
}

namespace {

// Only a node held more than once can be reached twice, so only those are memoised: most index
// arithmetic is a tree, and a hash map insert per node cost more than the rewrite itself. Leaves
// are not memoised either: their rule is cheap and gives an equal result again.
class BottomUpRewriter {
public:
  explicit BottomUpRewriter(const std::function<Expr(const Expr&)>& rule) : rule_(rule) {}

  Expr visit(const Expr& node) {
    if (node->operands.empty())
      return rule_(node);
    const bool shared = node.use_count() > 1;
    if (shared) {
      const auto found = done_.find(node.get());
      if (found != done_.end())
        return found->second;
    }
    Expr result = rule_(withVisitedOperands(node));
    if (shared)
      done_.emplace(node.get(), result);
    return result;
  }

private:
  // Most nodes come back unchanged, so their operands are visited into a small array and a node
  // is rebuilt (with its operand vector allocated) only when one of them changed.
  Expr withVisitedOperands(const Expr& node) {
    constexpr std::size_t kInline = 3;
    const std::size_t count = node->operands.size();
    if (count > kInline) {
      std::vector<Expr> operands;
      operands.reserve(count);
      for (const Expr& operand : node->operands)
        operands.push_back(visit(operand));
      return withOperands(node, std::move(operands));
    }
    std::array<Expr, kInline> visited;
    bool changed = false;
    for (std::size_t i = 0; i < count; ++i) {
      visited[i] = visit(node->operands[i]);
      changed = changed || visited[i].get() != node->operands[i].get();
    }
    if (!changed)
      return node;
    return withOperands(node, std::vector<Expr>(std::make_move_iterator(visited.begin()),
                                                std::make_move_iterator(visited.begin() + count)));
  }

  const std::function<Expr(const Expr&)>& rule_;
  std::unordered_map<const ExprNode*, Expr> done_;
};

} // namespace

Expr rewriteBottomUp(const Expr& expr, const std::function<Expr(const Expr&)>& rule) {
  return BottomUpRewriter(rule).visit(expr);
}

Expr substitute(const Expr& expr, const VarMap& values) {
  if (values.empty())
    return expr;
  return rewriteBottomUp(expr, [&](const Expr& node) {
    if (node->kind == ExprKind::Variable) {
      auto found = values.find(node->var.get());
      if (found != values.end())
        return found->second;
    }
    return node;
  });
}

bool structurallyEqual(const Expr& left, const Expr& right) {
  // Pointers, not te's operator==, which would build an Equal expression.
  if (left.get() == right.get())
    return true;
  if (left->kind != right->kind || left->dtype != right->dtype ||
      left->operands.size() != right->operands.size())
    return false;
  switch (left->kind) {
  case ExprKind::IntImm:
    return left->intValue == right->intValue;
  case ExprKind::FloatImm:
    // Bitwise, so that NaN immediates compare equal to themselves.
    return std::memcmp(&left->floatValue, &right->floatValue, sizeof(double)) == 0;
  case ExprKind::Variable:
    return left->var.get() == right->var.get();
  case ExprKind::Call:
    if (left->function != right->function)
      return false;
    break;
  case ExprKind::Load:
    if (left->tensor != right->tensor)
      return false;
    break;
  case ExprKind::BufferLoad:
    if (left->buffer != right->buffer)
      return false;
    break;
  case ExprKind::Reduce:
    if (left->reducer != right->reducer || left->reduceAxes.size() != right->reduceAxes.size())
      return false;
    for (std::size_t i = 0; i < left->reduceAxes.size(); ++i)
      if (left->reduceAxes[i].var != right->reduceAxes[i].var ||
          left->reduceAxes[i].extent != right->reduceAxes[i].extent)
        return false;
    break;
  default:
    break;
  }
  for (std::size_t i = 0; i < left->operands.size(); ++i)
    if (!structurallyEqual(left->operands[i], right->operands[i]))
      return false;
  return true;
}

namespace {

// Visits each distinct node once; stops early when `visit` returns false.
bool visitNodes(const Expr& expr, const std::function<bool(const Expr&)>& visit) {
  std::unordered_set<const ExprNode*> seen;
  std::function<bool(const Expr&)> walk = [&](const Expr& node) {
    if (!seen.insert(node.get()).second)
      return true;
    if (!visit(node))
      return false;
    for (const Expr& operand : node->operands)
      if (!walk(operand))
        return false;
    return true;
  };
  return walk(expr);
}

} // namespace

bool allVariables(const Expr& expr, const std::function<bool(const VarNode*)>& predicate) {
  return visitNodes(expr, [&](const Expr& node) {
    return node->kind != ExprKind::Variable || predicate(node->var.get());
  });
}

bool containsLoad(const Expr& expr) {
  return !visitNodes(expr, [](const Expr& node) {
    return node->kind != ExprKind::Load && node->kind != ExprKind::BufferLoad;
  });
}

void forEachLoad(const Expr& expr, const std::function<void(const Expr&)>& visit) {
  visitNodes(expr, [&](const Expr& node) {
    if (node->kind == ExprKind::Load)
      visit(node);
    return true;
  });
}

} // namespace clustune::schedule
