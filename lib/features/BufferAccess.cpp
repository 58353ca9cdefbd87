// Buffer-access analysis of one Store (BufferAccess.h): index motion per loop, footprints,
// cache lines, reuse and stride. See docs/features.md for the definitions.
#include "features/BufferAccess.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <unordered_map>

namespace clustune::features {

namespace {

constexpr double kCacheLineBytes = 64.0;

using Bindings = std::unordered_map<const te::VarNode*, std::int64_t>;

std::int64_t floorDivide(std::int64_t value, std::int64_t divisor) {
  const std::int64_t quotient = value / divisor;
  return (value % divisor != 0 && ((value < 0) != (divisor < 0))) ? quotient - 1 : quotient;
}

// Integer evaluation of an index expression; nullopt when it is not a function of the loop
// variables alone (a load, a float, a division by zero).
std::optional<std::int64_t> evaluate(const te::Expr& expr, const Bindings& bindings) {
  using te::ExprKind;
  switch (expr->kind) {
  case ExprKind::IntImm:
    return expr->intValue;
  case ExprKind::Variable: {
    // A variable that is not an enclosing loop (none is expected) counts as 0, like the loops
    // that are held at their first iteration.
    const auto found = bindings.find(expr->var.get());
    return found == bindings.end() ? 0 : found->second;
  }
  case ExprKind::Cast:
    if (graph::isFloatingPoint(expr->dtype))
      return std::nullopt;
    return evaluate(expr->operands[0], bindings);
  case ExprKind::Select: {
    const auto condition = evaluate(expr->operands[0], bindings);
    if (!condition)
      return std::nullopt;
    return evaluate(expr->operands[*condition != 0 ? 1 : 2], bindings);
  }
  case ExprKind::Not: {
    const auto value = evaluate(expr->operands[0], bindings);
    if (!value)
      return std::nullopt;
    return *value == 0 ? 1 : 0;
  }
  default:
    break;
  }
  if (expr->operands.size() != 2 || graph::isFloatingPoint(expr->dtype))
    return std::nullopt;
  const auto left = evaluate(expr->operands[0], bindings);
  const auto right = evaluate(expr->operands[1], bindings);
  if (!left || !right)
    return std::nullopt;
  const std::int64_t a = *left, b = *right;
  switch (expr->kind) {
  case ExprKind::Add:
    return a + b;
  case ExprKind::Sub:
    return a - b;
  case ExprKind::Mul:
    return a * b;
  case ExprKind::Div:
    return b == 0 ? std::nullopt : std::optional<std::int64_t>(a / b);
  case ExprKind::FloorDiv:
    return b == 0 ? std::nullopt : std::optional<std::int64_t>(floorDivide(a, b));
  case ExprKind::FloorMod:
    return b == 0 ? std::nullopt : std::optional<std::int64_t>(a - floorDivide(a, b) * b);
  case ExprKind::Min:
    return std::min(a, b);
  case ExprKind::Max:
    return std::max(a, b);
  case ExprKind::Equal:
    return a == b;
  case ExprKind::NotEqual:
    return a != b;
  case ExprKind::Less:
    return a < b;
  case ExprKind::LessEqual:
    return a <= b;
  case ExprKind::Greater:
    return a > b;
  case ExprKind::GreaterEqual:
    return a >= b;
  case ExprKind::And:
    return (a != 0) && (b != 0);
  case ExprKind::Or:
    return (a != 0) || (b != 0);
  default:
    return std::nullopt;
  }
}

bool occursIn(const te::Expr& expr, const te::VarNode* var) {
  if (expr->kind == te::ExprKind::Variable)
    return expr->var.get() == var;
  return std::any_of(expr->operands.begin(), expr->operands.end(),
                     [var](const te::Expr& operand) { return occursIn(operand, var); });
}

double product(const std::vector<EnclosingLoop>& loops, std::size_t first, std::size_t last) {
  double result = 1;
  for (std::size_t loop = first; loop < last; ++loop)
    result *= static_cast<double>(loops[loop].extent);
  return result;
}

} // namespace

IndexMotion analyzeIndex(const te::Expr& index, const std::vector<EnclosingLoop>& loops) {
  IndexMotion motion;
  Bindings bindings;
  for (const EnclosingLoop& loop : loops)
    bindings[loop.var] = 0;
  const auto base = evaluate(index, bindings);
  if (!base) {
    motion.opaque = true;
    motion.stride.assign(loops.size(), 0);
    motion.range.assign(loops.size(), 0);
    return motion;
  }
  for (const EnclosingLoop& loop : loops) {
    bindings[loop.var] = 1;
    const auto next = evaluate(index, bindings);
    bindings[loop.var] = std::max<std::int64_t>(loop.extent - 1, 0);
    const auto last = evaluate(index, bindings);
    bindings[loop.var] = 0;
    if (!next || !last) {
      // Defined at 0 but not elsewhere (a division by a loop-dependent zero): treat as opaque.
      motion.opaque = true;
      motion.stride.assign(loops.size(), 0);
      motion.range.assign(loops.size(), 0);
      return motion;
    }
    motion.stride.push_back(loop.extent > 1 ? *next - *base : 0);
    motion.range.push_back(*last - *base);
  }
  return motion;
}

bool occursUnderDivision(const te::Expr& index, const te::VarNode* var) {
  if (index->kind == te::ExprKind::FloorDiv || index->kind == te::ExprKind::FloorMod ||
      index->kind == te::ExprKind::Div)
    return occursIn(index, var);
  return std::any_of(index->operands.begin(), index->operands.end(),
                     [var](const te::Expr& operand) { return occursUnderDivision(operand, var); });
}

StoreAccessAnalysis::StoreAccessAnalysis(const te::StmtNode& store,
                                         std::vector<EnclosingLoop> loops)
    : loops_(std::move(loops)) {
  assert(store.kind == te::StmtKind::Store);
  executions_ = product(loops_, 0, loops_.size());
  accessesOf(store.buffer)
      .accesses.push_back({store.index, true, analyzeIndex(store.index, loops_)});
  collectLoads(store.value);
}

void StoreAccessAnalysis::collectLoads(const te::Expr& expr) {
  if (expr->kind == te::ExprKind::BufferLoad)
    accessesOf(expr->buffer)
        .accesses.push_back({expr->operands[0], false, analyzeIndex(expr->operands[0], loops_)});
  for (const te::Expr& operand : expr->operands)
    collectLoads(operand);
}

StoreAccessAnalysis::BufferAccesses& StoreAccessAnalysis::accessesOf(const te::Buffer& buffer) {
  for (BufferAccesses& group : buffers_)
    if (group.buffer == buffer)
      return group;
  buffers_.push_back({buffer, {}});
  return buffers_.back();
}

bool StoreAccessAnalysis::storeAccumulates() const {
  const BufferAccesses& stored = buffers_.front();
  return std::any_of(stored.accesses.begin(), stored.accesses.end(),
                     [](const Access& access) { return !access.isWrite; });
}

// The union of each access's interval of touched elements, capped by the number of distinct
// (loop iteration, access) pairs and by the buffer: exact for affine indices whose loops do not
// overlap or that overlap as sliding windows (convolutions), an upper bound otherwise.
double StoreAccessAnalysis::uniqueElementsInsideLoops(const BufferAccesses& group,
                                                      std::size_t firstLoop) const {
  const double bufferElements =
      static_cast<double>(std::max<std::int64_t>(group.buffer->elements, 1));
  double low = INFINITY, high = -INFINITY, iterationBound = 0;
  Bindings atZero;
  for (const EnclosingLoop& loop : loops_)
    atZero[loop.var] = 0;
  for (const Access& access : group.accesses) {
    if (access.motion.opaque)
      return bufferElements;
    const double base = static_cast<double>(*evaluate(access.index, atZero));
    double accessLow = base, accessHigh = base, iterations = 1;
    for (std::size_t loop = firstLoop; loop < loops_.size(); ++loop) {
      const double range = static_cast<double>(access.motion.range[loop]);
      accessLow += std::min(range, 0.0);
      accessHigh += std::max(range, 0.0);
      if (access.motion.dependsOn(loop))
        iterations *= static_cast<double>(loops_[loop].extent);
    }
    low = std::min(low, accessLow);
    high = std::max(high, accessHigh);
    iterationBound += iterations;
  }
  return std::min({high - low + 1, iterationBound, bufferElements});
}

double StoreAccessAnalysis::uniqueBytesInsideLoops(std::size_t firstLoop) const {
  assert(firstLoop <= loops_.size());
  double bytes = 0;
  for (const BufferAccesses& group : buffers_)
    bytes += uniqueElementsInsideLoops(group, firstLoop) *
             static_cast<double>(graph::dataTypeBytes(group.buffer->dtype));
  return bytes;
}

BufferAccessFeatures StoreAccessAnalysis::featuresOf(const BufferAccesses& group) const {
  BufferAccessFeatures result;
  const auto accesses = static_cast<double>(group.accesses.size());
  const double elementBytes = static_cast<double>(graph::dataTypeBytes(group.buffer->dtype));
  const bool written = std::any_of(group.accesses.begin(), group.accesses.end(),
                                   [](const Access& access) { return access.isWrite; });
  const bool read = std::any_of(group.accesses.begin(), group.accesses.end(),
                                [](const Access& access) { return !access.isWrite; });
  result.accessType =
      written && read ? AccessType::ReadWrite : (written ? AccessType::Write : AccessType::Read);
  // As Ansor: one access per execution, however often the statement names the buffer (a
  // read-modify-write moves each element once through the cache).
  result.bytes = executions_ * elementBytes;
  const double uniqueElements = uniqueElementsInsideLoops(group, 0);
  result.uniqueBytes = uniqueElements * elementBytes;

  // The innermost loop that moves the index, and by how much (the smallest over the accesses).
  // Loops inside it revisit the same element, so they cost no new cache line.
  std::size_t movingLoop = loops_.size();
  double movingStride = 0;
  for (std::size_t loop = loops_.size(); loop-- > 0 && movingLoop == loops_.size();) {
    for (const Access& access : group.accesses) {
      const auto stride = static_cast<double>(std::llabs(access.motion.stride[loop]));
      if (stride != 0 && (movingStride == 0 || stride < movingStride)) {
        movingStride = stride;
        movingLoop = loop;
      }
    }
  }
  const double lineFraction = std::min(1.0, movingStride * elementBytes / kCacheLineBytes);
  const double movingIterations =
      movingLoop == loops_.size() ? 0 : product(loops_, 0, movingLoop + 1);
  result.lines = std::max(1.0, movingIterations * lineFraction);
  result.uniqueLines = std::max(1.0, uniqueElements * lineFraction);
  // The feature is Ansor's: the stride of the innermost loop, 0 when that loop does not move
  // the index (an accumulator under its reduction loop, a broadcast operand).
  result.stride = !loops_.empty() && movingLoop + 1 == loops_.size() ? movingStride : 0;

  // Reuse, from the innermost loop outwards: a loop the buffer's indices do not depend on
  // re-reads the same data every iteration; otherwise several accesses of the buffer in one
  // statement reuse each other's data.
  for (std::size_t loop = loops_.size(); loop-- > 0;) {
    const bool dependent =
        std::any_of(group.accesses.begin(), group.accesses.end(),
                    [loop](const Access& access) { return access.motion.dependsOn(loop); });
    if (!dependent) {
      result.reuseType = ReuseType::LoopMultipleRead;
      result.reuseCount = static_cast<double>(loops_[loop].extent);
    } else if (group.accesses.size() > 1) {
      result.reuseType = ReuseType::SerialMultipleReadWrite;
      result.reuseCount = accesses - 1;
    } else {
      continue;
    }
    result.reuseDistanceIterations = product(loops_, loop + 1, loops_.size());
    result.reuseDistanceBytes = uniqueBytesInsideLoops(loop + 1);
    return result;
  }
  if (loops_.empty() && group.accesses.size() > 1) {
    result.reuseType = ReuseType::SerialMultipleReadWrite;
    result.reuseCount = accesses - 1;
    result.reuseDistanceIterations = 1;
    result.reuseDistanceBytes = uniqueBytesInsideLoops(0);
  }
  return result;
}

std::vector<BufferAccessFeatures> StoreAccessAnalysis::features() const {
  std::vector<BufferAccessFeatures> result;
  for (const BufferAccesses& group : buffers_)
    result.push_back(featuresOf(group));
  std::stable_sort(result.begin(), result.end(),
                   [](const BufferAccessFeatures& a, const BufferAccessFeatures& b) {
                     if (a.reuseDistanceBytes != b.reuseDistanceBytes)
                       return a.reuseDistanceBytes > b.reuseDistanceBytes;
                     return a.uniqueBytes > b.uniqueBytes;
                   });
  return result;
}

} // namespace clustune::features
