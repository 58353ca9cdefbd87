// Per-store program features (ProgramFeatures.h): walks the loop nest keeping the enclosing
// loops and allocations, and for every Store assembles the 164 values from its operation
// counts, loop annotations, buffer accesses (BufferAccess.h), arithmetic-intensity curve,
// allocation and outer scope. Definitions and departures from Ansor: docs/features.md.
#include "features/ProgramFeatures.h"

#include "features/BufferAccess.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace clustune::features {

namespace {

using te::ExprKind;

// Operation counts of one execution of a store's value, in the order of the first 16 features.
struct OperationCounts {
  std::array<double, 16> counts = {};

  // Floating-point operations per execution (a mad is two), the numerator of the arithmetic
  // intensity.
  double flops() const {
    return 2 * counts[index::kFloatMad] + counts[index::kFloatAddSub] + counts[index::kFloatMul] +
           counts[index::kFloatDivMod] + counts[index::kFloatCmp] + counts[index::kFloatMathFunc] +
           counts[index::kFloatOtherFunc];
  }
};

bool isMultiply(const te::Expr& expr) {
  return expr->kind == ExprKind::Mul;
}

// Math functions in Ansor's sense (transcendental calls); the rest are "other" functions.
bool isMathFunction(te::CallFunction function) {
  switch (function) {
  case te::CallFunction::Exp:
  case te::CallFunction::Log:
  case te::CallFunction::Sqrt:
  case te::CallFunction::Tanh:
  case te::CallFunction::Erf:
  case te::CallFunction::Sigmoid:
  case te::CallFunction::Pow:
  case te::CallFunction::Sin:
  case te::CallFunction::Cos:
  case te::CallFunction::Tan:
  case te::CallFunction::Asin:
  case te::CallFunction::Acos:
  case te::CallFunction::Atan:
  case te::CallFunction::Sinh:
  case te::CallFunction::Cosh:
  case te::CallFunction::Asinh:
  case te::CallFunction::Acosh:
  case te::CallFunction::Atanh:
    return true;
  default:
    return false;
  }
}

void countOperations(const te::Expr& expr, OperationCounts& result) {
  // Float counters start at 0, int counters at kIntMad; the offsets are shared.
  const auto bump = [&](const te::Expr& typed, std::size_t floatIndex) {
    const std::size_t offset = graph::isFloatingPoint(typed->dtype) ? 0 : index::kIntMad;
    result.counts[floatIndex + offset] += 1;
  };
  switch (expr->kind) {
  case ExprKind::Add:
  case ExprKind::Sub:
    // a·b ± c is one multiply-add, as an FMA computes it; its product's operands still count.
    if (isMultiply(expr->operands[0]) ||
        (expr->kind == ExprKind::Add && isMultiply(expr->operands[1]))) {
      const std::size_t product = isMultiply(expr->operands[0]) ? 0 : 1;
      bump(expr, index::kFloatMad);
      for (const te::Expr& operand : expr->operands[product]->operands)
        countOperations(operand, result);
      countOperations(expr->operands[1 - product], result);
      return;
    }
    bump(expr, index::kFloatAddSub);
    break;
  case ExprKind::Mul:
    bump(expr, index::kFloatMul);
    break;
  case ExprKind::Div:
  case ExprKind::FloorDiv:
  case ExprKind::FloorMod:
    bump(expr, index::kFloatDivMod);
    break;
  case ExprKind::Min:
  case ExprKind::Max:
    bump(expr, index::kFloatCmp);
    break;
  case ExprKind::Equal:
  case ExprKind::NotEqual:
  case ExprKind::Less:
  case ExprKind::LessEqual:
  case ExprKind::Greater:
  case ExprKind::GreaterEqual:
    // A comparison's own type is Bool; what it compares decides float or int.
    bump(expr->operands[0], index::kFloatCmp);
    break;
  case ExprKind::And:
  case ExprKind::Or:
  case ExprKind::Not:
    result.counts[index::kBoolOp] += 1;
    break;
  case ExprKind::Select:
    result.counts[index::kSelectOp] += 1;
    break;
  case ExprKind::Call:
    bump(expr, isMathFunction(expr->function) ? index::kFloatMathFunc : index::kFloatOtherFunc);
    break;
  default:
    // Immediates, variables, casts and loads are not operations; a load's index is visited.
    break;
  }
  for (const te::Expr& operand : expr->operands)
    countOperations(operand, result);
}

// Where loop `loop` sits among the store's loops: spatial loops move the stored index; reduce
// loops do not move it while the store accumulates into its own buffer. Loops outside the
// Allocate of the stored buffer (`firstOwnLoop`) belong to a consumer that this stage is
// computed at. Positions are ranked by nesting order within their class (see docs/features.md
// for how this relates to Ansor's tensor-axis positions).
LoopPosition positionOf(std::size_t loop, const std::vector<EnclosingLoop>& loops,
                        std::size_t firstOwnLoop, const te::StmtNode& store,
                        const IndexMotion& storeMotion, bool accumulates) {
  if (occursUnderDivision(store.index, loops[loop].var))
    return LoopPosition::Mixed;
  const auto isReduce = [&](std::size_t candidate) {
    return candidate >= firstOwnLoop && accumulates && !storeMotion.dependsOn(candidate);
  };
  const auto isSpatial = [&](std::size_t candidate) { return storeMotion.dependsOn(candidate); };
  if (!isReduce(loop) && !isSpatial(loop))
    return LoopPosition::OuterSpatial; // outside the stage's own loops (Ansor's fallback)
  const auto sameClass = [&](std::size_t candidate) {
    return isReduce(loop) ? isReduce(candidate) : isSpatial(candidate);
  };
  bool innerExists = false, outerExists = false;
  for (std::size_t other = 0; other < loops.size(); ++other)
    if (other != loop && sameClass(other))
      (other > loop ? innerExists : outerExists) = true;
  const bool reduce = isReduce(loop);
  if (!innerExists)
    return reduce ? LoopPosition::InnerReduce : LoopPosition::InnerSpatial;
  if (!outerExists)
    return reduce ? LoopPosition::OuterReduce : LoopPosition::OuterSpatial;
  return reduce ? LoopPosition::MiddleReduce : LoopPosition::MiddleSpatial;
}

struct EnclosingAllocation {
  te::Buffer buffer;
  std::size_t loopsOutside = 0; // how many enclosing loops are outside the Allocate
};

class FeatureExtractor {
public:
  std::vector<StoreFeatures> run(const te::Stmt& body) {
    visit(body);
    return std::move(result_);
  }

private:
  void visit(const te::Stmt& stmt) {
    switch (stmt->kind) {
    case te::StmtKind::For:
      loops_.push_back(
          {stmt->loopVar.get(), std::max<std::int64_t>(stmt->extent, 0), stmt->forKind});
      autoUnroll_.push_back(stmt->autoUnrollMaxStep);
      visit(stmt->body);
      loops_.pop_back();
      autoUnroll_.pop_back();
      break;
    case te::StmtKind::Store:
      result_.push_back(featuresOf(*stmt));
      break;
    case te::StmtKind::Allocate:
      allocations_.push_back({stmt->buffer, loops_.size()});
      visit(stmt->body);
      allocations_.pop_back();
      break;
    case te::StmtKind::IfThenElse:
      // Guards are ignored: the statements count as executed on every iteration, an upper
      // bound that is exact except at the tails of non-divisible splits.
      visit(stmt->body);
      if (stmt->elseBody)
        visit(stmt->elseBody);
      break;
    case te::StmtKind::Sequence:
      for (const te::Stmt& statement : stmt->sequence)
        visit(statement);
      break;
    case te::StmtKind::Barrier:
      break;
    }
  }

  StoreFeatures featuresOf(const te::StmtNode& store) const {
    std::array<double, kProgramFeatureCount> raw = {};
    std::vector<bool> isFlag(kProgramFeatureCount, false);
    double executions = 1;
    for (const EnclosingLoop& loop : loops_)
      executions *= static_cast<double>(loop.extent);

    // Computation: operation counts per execution, times the executions.
    OperationCounts operations;
    countOperations(store.value, operations);
    for (std::size_t op = 0; op < operations.counts.size(); ++op)
      raw[op] = operations.counts[op] * executions;

    const StoreAccessAnalysis accesses(store, loops_);
    const auto allocation =
        std::find_if(allocations_.rbegin(), allocations_.rend(),
                     [&](const EnclosingAllocation& a) { return a.buffer == store.buffer; });
    const std::size_t firstOwnLoop =
        allocation == allocations_.rend() ? 0 : allocation->loopsOutside;
    const IndexMotion storeMotion = analyzeIndex(store.index, loops_);
    const bool accumulates = accesses.storeAccumulates();
    const auto annotation = [&](std::size_t base, te::ForKind kind) {
      std::size_t innermost = loops_.size();
      double count = 0, product = 1;
      for (std::size_t loop = 0; loop < loops_.size(); ++loop)
        if (loops_[loop].kind == kind) {
          count += 1;
          product *= static_cast<double>(loops_[loop].extent);
          innermost = loop;
        }
      const LoopPosition position =
          innermost == loops_.size()
              ? LoopPosition::None
              : positionOf(innermost, loops_, firstOwnLoop, store, storeMotion, accumulates);
      raw[base + index::kAnnotationCount] = count;
      raw[base + index::kAnnotationProduct] = count > 0 ? product : 0;
      raw[base + index::kAnnotationLength] =
          count > 0 ? static_cast<double>(loops_[innermost].extent) : 0;
      raw[index::annotationPosition(base, position)] = 1;
      for (std::size_t flag = 0; flag < kLoopPositionCount; ++flag)
        isFlag[base + index::kAnnotationPosition + flag] = true;
    };
    annotation(index::kVectorize, te::ForKind::Vectorized);
    annotation(index::kUnroll, te::ForKind::Unrolled);
    annotation(index::kParallel, te::ForKind::Parallel);
    // Ansor's GPU group: is_gpu, then the extent of the loop bound to each block, thread and
    // virtual-thread index (0 where none is); a store of a GPU kernel lies under its bindings.
    isFlag[index::kIsGpu] = true;
    constexpr std::pair<te::ForKind, std::size_t> bindings[] = {
        {te::ForKind::BlockIdxX, index::kBlockIdxX},
        {te::ForKind::BlockIdxY, index::kBlockIdxY},
        {te::ForKind::BlockIdxZ, index::kBlockIdxZ},
        {te::ForKind::ThreadIdxX, index::kThreadIdxX},
        {te::ForKind::ThreadIdxY, index::kThreadIdxY},
        {te::ForKind::ThreadIdxZ, index::kThreadIdxZ},
        {te::ForKind::VThread, index::kVthread}};
    for (const EnclosingLoop& loop : loops_) {
      if (!te::isThreadBound(loop.kind))
        continue;
      raw[index::kIsGpu] = 1;
      for (const auto& [kind, feature] : bindings)
        if (loop.kind == kind)
          raw[feature] = static_cast<double>(loop.extent);
    }

    // Buffer accesses: the five most important buffers.
    const std::vector<BufferAccessFeatures> buffers = accesses.features();
    for (std::size_t slot = 0; slot < std::min(buffers.size(), index::kBufferSlots); ++slot) {
      const BufferAccessFeatures& buffer = buffers[slot];
      const auto at = [slot](std::size_t offset) { return index::buffer(slot, offset); };
      for (std::size_t offset :
           {index::kAccessRead, index::kAccessWrite, index::kAccessReadWrite,
            index::kReuseLoopMultipleRead, index::kReuseSerialMultipleReadWrite, index::kReuseNone})
        isFlag[at(offset)] = true;
      raw[at(index::kAccessRead + static_cast<std::size_t>(buffer.accessType))] = 1;
      raw[at(index::kBytes)] = buffer.bytes;
      raw[at(index::kUniqueBytes)] = buffer.uniqueBytes;
      raw[at(index::kLines)] = buffer.lines;
      raw[at(index::kUniqueLines)] = buffer.uniqueLines;
      raw[at(index::kReuseLoopMultipleRead + static_cast<std::size_t>(buffer.reuseType))] = 1;
      raw[at(index::kReuseDistanceIterations)] = buffer.reuseDistanceIterations;
      raw[at(index::kReuseDistanceBytes)] = buffer.reuseDistanceBytes;
      raw[at(index::kReuseCount)] = buffer.reuseCount;
      // Without reuse Ansor doubles the figures instead of dividing them ("a magic number 2"),
      // so that no reuse ranks below a reuse count of 1.
      const double perReuse = buffer.reuseCount > 0.5 ? 1 / buffer.reuseCount : 2;
      raw[at(index::kBytesPerReuse)] = buffer.bytes * perReuse;
      raw[at(index::kUniqueBytesPerReuse)] = buffer.uniqueBytes * perReuse;
      raw[at(index::kLinesPerReuse)] = buffer.lines * perReuse;
      raw[at(index::kUniqueLinesPerReuse)] = buffer.uniqueLines * perReuse;
      raw[at(index::kStride)] = buffer.stride;
    }

    const std::array<double, index::kArithmeticIntensitySamples> curve =
        arithmeticIntensityCurve(operations.flops(), accesses);
    std::copy(curve.begin(), curve.end(), raw.begin() + index::kArithmeticIntensityCurve);

    // Allocation: only stores into a Local buffer allocated around them; arguments stay 0.
    if (store.buffer->scope == te::BufferScope::Local && allocation != allocations_.rend()) {
      double outside = 1;
      for (std::size_t loop = 0; loop < allocation->loopsOutside; ++loop)
        outside *= static_cast<double>(loops_[loop].extent);
      const auto elements = static_cast<double>(store.buffer->elements);
      raw[index::kAllocationSize] =
          elements * static_cast<double>(graph::dataTypeBytes(store.buffer->dtype));
      raw[index::kAllocationProduct] = elements * outside;
      raw[index::kAllocationOuterProduct] = outside;
      raw[index::kAllocationInnerProduct] = outside > 0 ? executions / outside : 0;
    }

    // Outer scope.
    raw[index::kOuterProduct] = executions;
    raw[index::kNumLoops] = static_cast<double>(loops_.size());
    // The nearest enclosing pragma: lowering puts it on the outermost loop of the stage.
    for (auto step = autoUnroll_.rbegin(); step != autoUnroll_.rend(); ++step)
      if (*step > 0) {
        raw[index::kAutoUnrollMaxStep] = *step;
        break;
      }

    StoreFeatures features;
    for (std::size_t value = 0; value < kProgramFeatureCount; ++value)
      features.values[value] = isFlag[value] ? static_cast<float>(raw[value]) : slog(raw[value]);
    return features;
  }

  // Arithmetic intensity (FLOPs / distinct bytes) as loops are added from the innermost
  // outwards, sampled at 10 evenly spaced fractions of the store's total FLOPs with linear
  // interpolation between loop levels, as Ansor.
  std::array<double, index::kArithmeticIntensitySamples>
  arithmeticIntensityCurve(double flopsPerExecution, const StoreAccessAnalysis& accesses) const {
    std::array<double, index::kArithmeticIntensitySamples> curve = {};
    if (flopsPerExecution <= 0)
      return curve;
    std::vector<double> flops, intensity;
    double iterations = 1;
    for (std::size_t level = loops_.size() + 1; level-- > 0;) {
      if (level < loops_.size())
        iterations *= static_cast<double>(loops_[level].extent);
      // Loops of extent 1 add no point: the curve's x values must increase.
      if (!flops.empty() && flopsPerExecution * iterations <= flops.back())
        continue;
      flops.push_back(flopsPerExecution * iterations);
      intensity.push_back(flops.back() / accesses.uniqueBytesInsideLoops(level));
    }
    if (iterations <= 0)
      return curve; // a loop of extent 0: nothing executes
    std::size_t point = 0;
    for (std::size_t sample = 0; sample < curve.size(); ++sample) {
      const double x =
          flops.back() * static_cast<double>(sample + 1) / static_cast<double>(curve.size());
      while (flops[point] < x * (1 - 1e-9))
        ++point;
      assert(point < flops.size());
      if (point == 0) {
        curve[sample] = intensity[0];
      } else {
        const double slope =
            (intensity[point] - intensity[point - 1]) / (flops[point] - flops[point - 1]);
        curve[sample] = intensity[point - 1] + slope * (x - flops[point - 1]);
      }
    }
    return curve;
  }

  std::vector<EnclosingLoop> loops_;
  std::vector<int> autoUnroll_; // per enclosing loop
  std::vector<EnclosingAllocation> allocations_;
  std::vector<StoreFeatures> result_;
};

} // namespace

float slog(double value) {
  return static_cast<float>(std::copysign(std::log2(1.0 + std::fabs(value)), value));
}

std::vector<StoreFeatures> extractProgramFeatures(const te::LoweredFunction& function) {
  if (!function.body)
    return {};
  return FeatureExtractor().run(function.body);
}

} // namespace clustune::features
