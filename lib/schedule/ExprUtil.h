// Generic rewriting and inspection of te expressions, shared by lowering (substituting loop
// expressions for axes, inlining stages, flattening loads), bound inference and the simplifier.
// Expressions are DAGs (inlining shares subexpressions), so rewrites visit each node once.
#pragma once

#include "te/Expr.h"

#include <functional>
#include <span>
#include <unordered_map>

namespace clustune::schedule {

// The same node with new operands, moved out of `operands`, built through the te builders so
// that integer immediates fold; returns `expr` itself when no operand changed.
te::Expr withOperands(const te::Expr& expr, std::span<te::Expr> operands);

// Rewrites bottom-up: operands first, then `rule` receives the node rebuilt on the rewritten
// operands and returns its replacement (or the node). Each distinct node is rewritten once.
te::Expr rewriteBottomUp(const te::Expr& expr,
                         const std::function<te::Expr(const te::Expr&)>& rule);

using VarMap = std::unordered_map<const te::VarNode*, te::Expr>;

// Replaces variables by identity; variables not in `values` stay.
te::Expr substitute(const te::Expr& expr, const VarMap& values);

// Same tree: same kinds, dtypes, immediates, variables (by identity), tensors and buffers.
bool structurallyEqual(const te::Expr& left, const te::Expr& right);

// Whether `predicate` holds for every variable in `expr`.
bool allVariables(const te::Expr& expr, const std::function<bool(const te::VarNode*)>& predicate);

// Whether `expr` contains a tensor Load or a BufferLoad (a data-dependent value).
bool containsLoad(const te::Expr& expr);

// Calls `visit` for every Load in `expr`, including loads nested in other loads' indices.
void forEachLoad(const te::Expr& expr, const std::function<void(const te::Expr&)>& visit);

} // namespace clustune::schedule
