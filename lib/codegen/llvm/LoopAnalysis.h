// Analyses of the loop-nest IR (te::Stmt) that the code generators need before they emit
// anything: how an index moves with a loop variable (contiguous, strided, broadcast or
// irregular), whether a Vectorized loop may run its iterations in lock-step as vector lanes,
// which values a parallel loop body captures from its surroundings, and how many statement
// instances a loop nest executes (for auto-unrolling). Plain C++ over te, no LLVM, so that it
// is testable and cheap to include.
#pragma once

#include "te/Stmt.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace clustune::codegen {

bool dependsOn(const te::Expr& expr, const te::VarNode* var);

// The constant c for which expr == c * var + (terms free of var), when the integer expression
// is affine in var with a constant coefficient (0 when it does not involve var at all);
// nullopt for anything else (var * n for a variable n, floordiv(var, 2), a load indexed by var).
std::optional<std::int64_t> linearCoefficient(const te::Expr& expr, const te::VarNode* var);

// A number that the integer index is always a multiple of (0 for an index that is always 0):
// constants, sums and products of what is known; `laneVar`, a vectorized loop's variable,
// counts as a multiple of the vector width, since its lane-0 value starts a vector.
std::int64_t knownMultiple(const te::Expr& index, const te::VarNode* laneVar, std::int64_t width);

// How the integer index moves across the `width` lanes of a vectorized loop over `laneVar`: the
// c with index(lane) = index(lane 0) + c·lane, or nullopt. Besides linearCoefficient's affine
// terms, it sees through floordiv and floormod by a multiple of the width whose operand moves
// by one per lane from a multiple of the width: the quotient is the same for all lanes and
// the remainder moves by one (a tile's row f // 8 and column f % 8 for f = 4t + lane).
std::optional<std::int64_t> laneCoefficient(const te::Expr& index, const te::VarNode* laneVar,
                                            std::int64_t width);

// Whether an integer expression is provably at least 0: loop variables (every loop of a lowered
// nest counts up from 0) and non-negative constants, combined by +, ×, floordiv and floormod by
// a positive constant, min, max and casts between integer types that keep the value.
bool isNonNegative(const te::Expr& expr);

// Same tree, same variables and buffers (by identity), same immediates.
bool structurallyEqual(const te::Expr& left, const te::Expr& right);

// Whether evaluating expr may fault when the enclosing program would not have evaluated it: a
// load (its index may be out of bounds where a Select or And guards it) or an integer division
// by something other than a non-zero constant. Such operands are evaluated lazily.
bool mayTrap(const te::Expr& expr);

// Whether expr picks one of several loads: a load, or a Select between two such choices, where
// no index and no condition but the outermost may fault. Its value is then one load from an
// address chosen without a branch (Concat's chain over its inputs, Where over tensors).
bool isLoadChoice(const te::Expr& expr);

// Why the Vectorized loop `loop` cannot run as vector lanes in lock-step (empty when it can).
// Lock-step execution reorders the loop's statement instances from (lane, statement) to
// (statement, lane). That keeps the program's meaning when each buffer written in the loop is
// accessed through one index expression that, where the buffer is also read, depends on the
// loop variable; lowered schedules satisfy this because a stage's store index is injective in
// its spatial loop variables. An allocation, a parallel loop or a vectorized loop nested inside
// stops it too (the nested vectorized loop is then vectorized on its own); serial and unrolled
// loops inside are fine.
std::string vectorizationBlocker(const te::StmtNode& loop);

// Statement instances that one execution of stmt runs, counting a vectorized loop once per
// vector, as TVM's auto-unroll pass counts them. Saturates instead of overflowing.
std::int64_t unrollStepCount(const te::Stmt& stmt);

// The variables and buffers a statement refers to, in a deterministic order, including those it
// binds itself (callers intersect with what is bound outside).
struct UsedValues {
  std::vector<const te::VarNode*> vars;
  std::vector<te::Buffer> buffers;
};
UsedValues collectUsedValues(const te::Stmt& stmt);

} // namespace clustune::codegen
