// Integer index expressions as linear combinations: Σ coefficient·atom + constant, where an
// atom is a variable or any subexpression that is not a sum, difference or product by a
// constant (a floordiv, a min, ...). Lowering produces indices like (io·4 + ii)·16 + j − io·64;
// as affine forms they cancel and regroup, which the simplifier and bound inference rely on.
#pragma once

#include "te/Expr.h"

#include <cstdint>
#include <vector>

namespace clustune::schedule {

struct AffineTerm {
  te::Expr atom;
  std::int64_t coefficient = 0;
};

struct AffineForm {
  // In order of first appearance, so that rebuilt expressions keep the source's term order
  // (outer loops first) and printing is deterministic.
  std::vector<AffineTerm> terms;
  std::int64_t constant = 0;

  bool isConstant() const { return terms.empty(); }
  // Adds coefficient·atom, merging with a structurally equal atom and dropping zero terms.
  void add(const te::Expr& atom, std::int64_t coefficient);
  AffineForm& operator+=(const AffineForm& other);
  // *this += other.scaled(factor), without the copy.
  AffineForm& addScaled(const AffineForm& other, std::int64_t factor);
  // scaled(factor), reusing this form's storage.
  AffineForm&& scaleInPlace(std::int64_t factor);
  AffineForm scaled(std::int64_t factor) const;
  AffineForm operator-(const AffineForm& other) const;
  AffineForm operator+(const AffineForm& other) const;
};

// The forms of the last few sums that a bottom-up rewrite produced. A parent's decomposition
// reaches its operands right after they were rewritten; taking their forms from here spares
// walking each operand's subtree again at every level, which made simplifying a chain of sums
// quadratic in its depth.
class RecentForms {
public:
  // `form` must be what toAffine(expr) gives.
  void remember(te::Expr expr, AffineForm form);
  const AffineForm* find(const te::ExprNode* node) const;

private:
  struct Entry {
    te::Expr expr; // held, so that no other node takes its address while it is remembered
    AffineForm form;
  };
  static constexpr std::size_t kCapacity = 8;
  Entry entries_[kCapacity];
  std::size_t next_ = 0;
};

// Decomposes an integer expression; non-integer expressions are a single atom. With `recent`,
// subexpressions found there are not decomposed again.
AffineForm toAffine(const te::Expr& expr, const RecentForms* recent = nullptr);
// The terms in the order that toAffine(fromAffine(form)) gives: the first positive term leads.
AffineForm inRebuiltOrder(AffineForm form);
// Rebuilds "a*c1 + b*c2 - d + k" in term order.
te::Expr fromAffine(const AffineForm& form, graph::DataType dtype = graph::DataType::Int64);
AffineForm constantForm(std::int64_t value);
// Whether fromAffine(form, dtype) would build a tree structurally equal to `expr`: then a
// simplifier can keep `expr` rather than allocate the same tree again.
bool rebuildsAs(const te::Expr& expr, const AffineForm& form,
                graph::DataType dtype = graph::DataType::Int64);

std::int64_t floorDivide(std::int64_t value, std::int64_t divisor);
std::int64_t floorModulo(std::int64_t value, std::int64_t divisor);

} // namespace clustune::schedule
