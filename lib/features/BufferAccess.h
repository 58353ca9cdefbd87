// Buffer-access analysis of one Store statement for the program features (ProgramFeatures.h):
// which buffers the store reads and writes, how their flat indices move with each enclosing
// loop, how many bytes and cache lines they touch, and where the data is reused. Internal to
// lib/features; the definitions are in docs/features.md.
//
// Index analysis: an index is treated as a function of the loop variables evaluated on
// integers. Per loop, `stride` is index(v = 1) − index(v = 0) and `range` is
// index(v = extent − 1) − index(v = 0), with every other loop variable at 0. For an affine
// index (what lowering produces after simplification) these are exact; for floordiv/floormod by
// constants (fused loops split back into axes) they are approximations that keep the footprint
// an over- rather than under-estimate. An index that reads memory (a gather) is "opaque": it
// depends on every loop and may touch the whole buffer.
#pragma once

#include "features/ProgramFeatures.h"
#include "te/Stmt.h"

#include <cstdint>
#include <vector>

namespace clustune::features {

// An enclosing loop of the store, outermost first.
struct EnclosingLoop {
  const te::VarNode* var = nullptr;
  std::int64_t extent = 1;
  te::ForKind kind = te::ForKind::Serial;
};

struct IndexMotion {
  bool opaque = false;
  std::int64_t base = 0;            // the index with every loop at 0
  std::vector<std::int64_t> stride; // per enclosing loop
  std::vector<std::int64_t> range;  // per enclosing loop
  bool dependsOn(std::size_t loop) const { return opaque || stride[loop] != 0 || range[loop] != 0; }
};

// Evaluates how `index` moves with each loop (see the file comment).
IndexMotion analyzeIndex(const te::Expr& index, const std::vector<EnclosingLoop>& loops);

// Whether `var` occurs inside a floordiv or floormod of `index`: a fused loop that iterates
// over several tensor axes at once (Ansor's "mixed" position).
bool occursUnderDivision(const te::Expr& index, const te::VarNode* var);

// The raw (not yet slog'd) 18 access features of one buffer.
struct BufferAccessFeatures {
  AccessType accessType = AccessType::Read;
  double bytes = 0, uniqueBytes = 0, lines = 0, uniqueLines = 0;
  ReuseType reuseType = ReuseType::None;
  double reuseDistanceIterations = 0, reuseDistanceBytes = 0, reuseCount = 0;
  double stride = 0;
};

class StoreAccessAnalysis {
public:
  // `store` is a Store statement; `loops` its enclosing loops, outermost first.
  StoreAccessAnalysis(const te::StmtNode& store, std::vector<EnclosingLoop> loops);

  // Distinct bytes of all buffers touched while loops [firstLoop, loops) run once through and
  // the loops outside them stay fixed: the working set of one iteration of loop firstLoop − 1.
  double uniqueBytesInsideLoops(std::size_t firstLoop) const;

  // Per buffer, sorted most important first: by reuse distance in bytes, then unique bytes,
  // both descending (ties keep first-access order: the written buffer, then loads in order).
  std::vector<BufferAccessFeatures> features() const;

  // Whether the stored value reads the stored buffer: an accumulation (reduction update).
  bool storeAccumulates() const;

private:
  struct Access {
    te::Expr index;
    bool isWrite = false;
    IndexMotion motion;
  };
  struct BufferAccesses {
    te::Buffer buffer;
    std::vector<Access> accesses;
  };

  void collectLoads(const te::Expr& expr);
  BufferAccesses& accessesOf(const te::Buffer& buffer);
  double uniqueElementsInsideLoops(const BufferAccesses& group, std::size_t firstLoop) const;
  BufferAccessFeatures featuresOf(const BufferAccesses& group) const;

  std::vector<EnclosingLoop> loops_;
  std::vector<BufferAccesses> buffers_; // first access order; the stored buffer first
  double executions_ = 1;               // product of the loop extents
};

} // namespace clustune::features
