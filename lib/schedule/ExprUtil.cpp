// See ExprUtil.h.
#include "schedule/ExprUtil.h"

#include <array>
#include <cassert>
#include <cstring>
#include <unordered_set>

namespace clustune::schedule {

using namespace te;

Expr withOperands(const Expr& expr, std::span<Expr> operands) {
  bool changed = false;
  for (std::size_t i = 0; i < operands.size(); ++i)
    changed = changed || operands[i].get() != expr->operands[i].get();
  if (!changed)
    return expr;
  const auto moved = [&] {
    return std::vector<Expr>(std::make_move_iterator(operands.begin()),
                             std::make_move_iterator(operands.end()));
  };
  switch (expr->kind) {
  case ExprKind::IntImm:
  case ExprKind::FloatImm:
  case ExprKind::Variable:
    return expr;
  case ExprKind::Not:
    return logicalNot(std::move(operands[0]));
  case ExprKind::Select:
    return select(std::move(operands[0]), std::move(operands[1]), std::move(operands[2]));
  case ExprKind::Cast:
    return cast(expr->dtype, std::move(operands[0]));
  case ExprKind::Call:
    return call(expr->function, moved());
  case ExprKind::Load:
    return load(expr->tensor, moved());
  case ExprKind::Reduce:
    return reduce(expr->reducer, std::move(operands[0]), expr->reduceAxes);
  case ExprKind::BufferLoad:
    return bufferLoad(expr->buffer, std::move(operands[0]));
  default:
    assert(operands.size() == 2);
    return binary(expr->kind, std::move(operands[0]), std::move(operands[1]));
  }
}

namespace {

// The rewritten forms of the shared nodes of one expression. An index has a handful of them, so a
// linear search beats a hash map, whose inserts allocated and rehashed; large expressions (an
// inlined chain of elementwise stages) move to a hash map.
class SharedNodeMemo {
public:
  const Expr* find(const ExprNode* node) const {
    if (!spilled_.empty()) {
      const auto found = spilled_.find(node);
      return found == spilled_.end() ? nullptr : &found->second;
    }
    for (const auto& [key, value] : small_)
      if (key == node)
        return &value;
    return nullptr;
  }

  void insert(const ExprNode* node, Expr value) {
    if (spilled_.empty() && small_.size() < kSmall) {
      small_.emplace_back(node, std::move(value));
      return;
    }
    if (spilled_.empty()) {
      for (auto& [key, kept] : small_)
        spilled_.emplace(key, std::move(kept));
      small_.clear();
    }
    spilled_.emplace(node, std::move(value));
  }

private:
  static constexpr std::size_t kSmall = 32;
  std::vector<std::pair<const ExprNode*, Expr>> small_;
  std::unordered_map<const ExprNode*, Expr> spilled_;
};

// Only a node held more than once can be reached twice, so only those are memoised: most index
// arithmetic is a tree, and a memo entry per node cost more than the rewrite itself. Leaves are
// not memoised either: their rule is cheap and gives an equal result again.
class BottomUpRewriter {
public:
  explicit BottomUpRewriter(const std::function<Expr(const Expr&)>& rule) : rule_(rule) {}

  Expr visit(const Expr& node) {
    if (node->operands.empty())
      return rule_(node);
    const bool shared = node.use_count() > 1;
    if (shared)
      if (const Expr* done = done_.find(node.get()))
        return *done;
    Expr result = rule_(withVisitedOperands(node));
    if (shared)
      done_.insert(node.get(), result);
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
      return withOperands(node, operands);
    }
    std::array<Expr, kInline> visited;
    bool changed = false;
    for (std::size_t i = 0; i < count; ++i) {
      visited[i] = visit(node->operands[i]);
      changed = changed || visited[i].get() != node->operands[i].get();
    }
    if (!changed)
      return node;
    return withOperands(node, std::span(visited.data(), count));
  }

  const std::function<Expr(const Expr&)>& rule_;
  SharedNodeMemo done_;
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

// Visits each distinct node once, depth first and operands in order; stops early when `visit`
// returns false. As in BottomUpRewriter, only nodes held more than once can be reached twice, so
// only those are remembered: these queries run on every index that bound inference looks at.
template <class Visit>
bool visitNodes(const Expr& expr, Visit&& visit) {
  std::unordered_set<const ExprNode*> seen;
  std::vector<const Expr*> stack = {&expr};
  while (!stack.empty()) {
    const Expr& node = *stack.back();
    stack.pop_back();
    if (node.use_count() > 1 && !seen.insert(node.get()).second)
      continue;
    if (!visit(node))
      return false;
    for (auto operand = node->operands.rbegin(); operand != node->operands.rend(); ++operand)
      stack.push_back(&*operand);
  }
  return true;
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
