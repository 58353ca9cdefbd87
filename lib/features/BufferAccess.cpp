// Buffer-access analysis of one Store (BufferAccess.h): index motion per loop, footprints,
// cache lines, reuse and stride. See docs/features.md for the definitions.
#include "features/BufferAccess.h"

#include <algorithm>
#include <cassert>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <optional>

namespace clustune::features {

namespace {

constexpr double kCacheLineBytes = 64.0;

std::int64_t floorDivide(std::int64_t value, std::int64_t divisor) {
  const std::int64_t quotient = value / divisor;
  return (value % divisor != 0 && ((value < 0) != (divisor < 0))) ? quotient - 1 : quotient;
}

// Evaluates an index at every point analyzeIndex needs in one walk of the expression: point 0
// has every loop at 0, points 2p + 1 and 2p + 2 have loop p at 1 and at extent − 1. Walking once
// with a row of values per node costs a fraction of one walk per point, which was most of the
// time of a dataset's features. A point is undefined when the index is not a function of the
// loop variables alone there (a load, a float, a division by zero); Select takes each point's
// value, and definedness, from the branch that point chooses.
class PointEvaluator {
public:
  explicit PointEvaluator(const std::vector<EnclosingLoop>& loops)
      : loops_(loops), points_(1 + 2 * loops.size()) {}

  std::size_t points() const { return points_; }

  // The index at every point, or nullopt when it is undefined at any of them.
  std::optional<std::vector<std::int64_t>> evaluate(const te::Expr& index) {
    top_ = 0;
    const std::size_t slot = evaluateInto(index);
    for (std::size_t point = 0; point < points_; ++point)
      if (!defined_[slot + point])
        return std::nullopt;
    return std::vector<std::int64_t>(values_.begin() + static_cast<std::ptrdiff_t>(slot),
                                     values_.begin() + static_cast<std::ptrdiff_t>(slot + points_));
  }

private:
  // Rows live on a stack (values_, defined_); the result's row is the first one the call takes.
  std::size_t pushRow() {
    const std::size_t slot = top_;
    top_ += points_;
    if (values_.size() < top_) {
      values_.resize(top_);
      defined_.resize(top_);
    }
    return slot;
  }

  void fill(std::size_t slot, std::int64_t value, bool defined) {
    std::fill_n(values_.begin() + static_cast<std::ptrdiff_t>(slot), points_, value);
    std::fill_n(defined_.begin() + static_cast<std::ptrdiff_t>(slot), points_, defined);
  }

  std::size_t evaluateInto(const te::Expr& expr) {
    using te::ExprKind;
    const std::size_t slot = pushRow();
    switch (expr->kind) {
    case ExprKind::IntImm:
      fill(slot, expr->intValue, true);
      return slot;
    case ExprKind::Variable:
      // A variable that is not an enclosing loop (none is expected) counts as 0, like the
      // loops that are held at their first iteration.
      fill(slot, 0, true);
      for (std::size_t loop = 0; loop < loops_.size(); ++loop)
        if (loops_[loop].var == expr->var.get()) {
          values_[slot + 2 * loop + 1] = 1;
          values_[slot + 2 * loop + 2] = std::max<std::int64_t>(loops_[loop].extent - 1, 0);
        }
      return slot;
    case ExprKind::Cast:
      if (graph::isFloatingPoint(expr->dtype)) {
        fill(slot, 0, false);
        return slot;
      }
      copyRow(evaluateInto(expr->operands[0]), slot);
      break;
    case ExprKind::Select: {
      const std::size_t condition = evaluateInto(expr->operands[0]);
      const std::size_t whenTrue = evaluateInto(expr->operands[1]);
      const std::size_t whenFalse = evaluateInto(expr->operands[2]);
      for (std::size_t point = 0; point < points_; ++point) {
        const std::size_t chosen = (values_[condition + point] != 0 ? whenTrue : whenFalse) + point;
        values_[slot + point] = values_[chosen];
        defined_[slot + point] = defined_[condition + point] && defined_[chosen];
      }
      break;
    }
    case ExprKind::Not: {
      const std::size_t operand = evaluateInto(expr->operands[0]);
      for (std::size_t point = 0; point < points_; ++point) {
        values_[slot + point] = values_[operand + point] == 0 ? 1 : 0;
        defined_[slot + point] = defined_[operand + point];
      }
      break;
    }
    default:
      if (expr->operands.size() != 2 || graph::isFloatingPoint(expr->dtype)) {
        fill(slot, 0, false);
        return slot;
      }
      binary(expr->kind, evaluateInto(expr->operands[0]), evaluateInto(expr->operands[1]), slot);
      break;
    }
    top_ = slot + points_;
    return slot;
  }

  void copyRow(std::size_t from, std::size_t to) {
    for (std::size_t point = 0; point < points_; ++point) {
      values_[to + point] = values_[from + point];
      defined_[to + point] = defined_[from + point];
    }
  }

  // The common operations get a loop of their own, with the operation chosen once per node
  // rather than at every point.
  void binary(te::ExprKind kind, std::size_t left, std::size_t right, std::size_t slot) {
    using std::int64_t;
    using te::ExprKind;
    const auto never = [](int64_t, int64_t) { return false; };
    const auto overflows = [](int64_t a, int64_t b) {
      return b == 0 || (b == -1 && a == INT64_MIN);
    };
    switch (kind) {
    case ExprKind::Add:
      return each(left, right, slot, never, [](int64_t a, int64_t b) { return wrap(u(a) + u(b)); });
    case ExprKind::Sub:
      return each(left, right, slot, never, [](int64_t a, int64_t b) { return wrap(u(a) - u(b)); });
    case ExprKind::Mul:
      return each(left, right, slot, never, [](int64_t a, int64_t b) { return wrap(u(a) * u(b)); });
    case ExprKind::FloorDiv:
      return each(left, right, slot, overflows,
                  [](int64_t a, int64_t b) { return floorDivide(a, b); });
    case ExprKind::FloorMod:
      return each(left, right, slot, overflows,
                  [](int64_t a, int64_t b) { return a - floorDivide(a, b) * b; });
    case ExprKind::Less:
      return each(left, right, slot, never, [](int64_t a, int64_t b) -> int64_t { return a < b; });
    case ExprKind::LessEqual:
      return each(left, right, slot, never, [](int64_t a, int64_t b) -> int64_t { return a <= b; });
    default:
      return partial(kind, left, right, slot);
    }
  }

  static std::uint64_t u(std::int64_t value) { return static_cast<std::uint64_t>(value); }

  // Undefined where an operand is, or where `undefined` says the operation is.
  template <class Undefined, class Operation>
  void each(std::size_t left, std::size_t right, std::size_t slot, Undefined undefined,
            Operation operation) {
    const std::int64_t* a = values_.data() + left;
    const std::int64_t* b = values_.data() + right;
    const char* aDefined = defined_.data() + left;
    const char* bDefined = defined_.data() + right;
    std::int64_t* out = values_.data() + slot;
    char* outDefined = defined_.data() + slot;
    for (std::size_t point = 0; point < points_; ++point) {
      const bool defined = aDefined[point] && bDefined[point] && !undefined(a[point], b[point]);
      out[point] = defined ? operation(a[point], b[point]) : 0;
      outDefined[point] = defined;
    }
  }

  void partial(te::ExprKind kind, std::size_t left, std::size_t right, std::size_t slot) {
    for (std::size_t point = 0; point < points_; ++point) {
      const std::int64_t a = values_[left + point], b = values_[right + point];
      bool defined = defined_[left + point] && defined_[right + point];
      std::int64_t value = 0;
      if (defined) {
        const auto result = apply(kind, a, b);
        defined = result.has_value();
        value = result.value_or(0);
      }
      values_[slot + point] = value;
      defined_[slot + point] = defined;
    }
  }

  // Wrapping arithmetic: the branch of a Select that a point does not take is evaluated too.
  static std::int64_t wrap(std::uint64_t value) { return static_cast<std::int64_t>(value); }

  static std::optional<std::int64_t> apply(te::ExprKind kind, std::int64_t a, std::int64_t b) {
    using te::ExprKind;
    const auto ua = static_cast<std::uint64_t>(a), ub = static_cast<std::uint64_t>(b);
    const bool divisionOverflows = b == 0 || (b == -1 && a == INT64_MIN);
    switch (kind) {
    case ExprKind::Add:
      return wrap(ua + ub);
    case ExprKind::Sub:
      return wrap(ua - ub);
    case ExprKind::Mul:
      return wrap(ua * ub);
    case ExprKind::Div:
      return divisionOverflows ? std::nullopt : std::optional<std::int64_t>(a / b);
    case ExprKind::FloorDiv:
      return divisionOverflows ? std::nullopt : std::optional<std::int64_t>(floorDivide(a, b));
    case ExprKind::FloorMod:
      return divisionOverflows ? std::nullopt
                               : std::optional<std::int64_t>(a - floorDivide(a, b) * b);
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

  const std::vector<EnclosingLoop>& loops_;
  const std::size_t points_;
  std::vector<std::int64_t> values_;
  std::vector<char> defined_;
  std::size_t top_ = 0;
};

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
  PointEvaluator evaluator(loops);
  const auto values = evaluator.evaluate(index);
  if (!values) {
    motion.opaque = true;
    motion.stride.assign(loops.size(), 0);
    motion.range.assign(loops.size(), 0);
    return motion;
  }
  const std::int64_t base = (*values)[0];
  motion.base = base;
  for (std::size_t loop = 0; loop < loops.size(); ++loop) {
    motion.stride.push_back(loops[loop].extent > 1 ? (*values)[2 * loop + 1] - base : 0);
    motion.range.push_back((*values)[2 * loop + 2] - base);
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
  for (const Access& access : group.accesses) {
    if (access.motion.opaque)
      return bufferElements;
    const auto base = static_cast<double>(access.motion.base);
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
