// Expression emission for KernelEmitter (see KernelEmitter.h): te expressions to LLVM values,
// scalar or vector lanes, with the semantics of te/Interpreter.h. Choices that matter:
// - Float Min/Max are llvm.minnum/maxnum (fmin/fmax: a NaN operand yields the other operand),
//   as the interpreter computes them; against a constant, x86 needs one instruction for them.
// - Float-to-integer casts saturate to int64 (NaN gives 0) and then wrap to the narrower type,
//   the interpreter's definition of ONNX's undefined out-of-range casts.
// - FloorDiv/FloorMod round towards negative infinity; on integers they are the truncating
//   quotient and remainder, corrected when the remainder's sign differs from the divisor's.
// - exp, log, sqrt, pow, fabs, floor, ceil and round (half to even) are LLVM intrinsics, so
//   that LLVM can fold and vectorize them; tanh, erf and the trigonometric and hyperbolic
//   functions (sin ... atanh) call the C library's tanhf/erff/sinf/... (or tanh/erf/sin/...
//   for float64), which is as accurate as <cmath>; fmod is frem; sigmoid is 1 / (1 + e) or
//   e / (1 + e) with e = exp(-|x|), within a few ulp of the exact value (exp's error plus two
//   roundings) down to the smallest subnormal. On vectors, a CPU
//   target with libmvec calls its vector functions for exp, log, pow and those (at most 4 ulp,
//   cpu/VectorMath.h); otherwise each lane makes its own scalar call.
// - Select, And and Or evaluate an operand that could fault (a load, an integer division by a
//   variable) only where it is chosen: by a branch for a scalar condition, under a lane mask
//   for a vector one. Padding relies on this. A scalar Select between loads (Concat's chain
//   over its inputs, Where over tensors) whose condition changes between the copies of an
//   unrolled loop instead selects the address and loads once: no branch, and no load that
//   the program would not make (MemoryEmitter.cpp). A branch per element there made LLVM's
//   LazyValueInfo take minutes (Inception-V3's last Concat, test/unit/CpuCodegenConcatTest.cpp).
#include "codegen/llvm/KernelEmitter.h"
#include "codegen/llvm/LoopAnalysis.h"
#include "support/Error.h"

#include <algorithm>
#include <cassert>
#include <llvm/Analysis/TargetTransformInfo.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/Target/TargetMachine.h>

namespace clustune::codegen {

using graph::DataType;
using te::Expr;
using te::ExprKind;

llvm::Type* KernelEmitter::registerType(DataType dtype) {
  switch (dtype) {
  case DataType::Float32:
    return builder_.getFloatTy();
  case DataType::Float16:
    return builder_.getHalfTy();
  case DataType::Float64:
    return builder_.getDoubleTy();
  case DataType::Int8:
  case DataType::UInt8:
    return builder_.getInt8Ty();
  case DataType::Int32:
    return builder_.getInt32Ty();
  case DataType::Int64:
    return builder_.getInt64Ty();
  case DataType::Bool:
    return builder_.getInt1Ty();
  }
  throw Error(std::string("unsupported dtype ") + graph::dataTypeName(dtype));
}

// Bool is one byte in memory (TensorData's layout) and one bit in registers.
llvm::Type* KernelEmitter::storageType(DataType dtype) {
  return dtype == DataType::Bool ? builder_.getInt8Ty() : registerType(dtype);
}

llvm::Value* KernelEmitter::fromStorage(llvm::Value* loaded, DataType dtype) {
  if (dtype != DataType::Bool)
    return loaded;
  return builder_.CreateICmpNE(loaded, llvm::Constant::getNullValue(loaded->getType()));
}

llvm::Value* KernelEmitter::broadcast(llvm::Value* value, unsigned width) {
  if (value->getType()->isVectorTy())
    return value;
  return numbered(kBroadcast, value, builder_.getInt32(width), [&] { return splat(value, width); });
}

llvm::Value* KernelEmitter::splat(llvm::Value* value, unsigned width) {
  if (auto* extract = llvm::dyn_cast<llvm::ExtractElementInst>(value);
      extract &&
      llvm::cast<llvm::FixedVectorType>(extract->getVectorOperandType())->getNumElements() == 1)
    return builder_.CreateShuffleVector(extract->getVectorOperand(),
                                        llvm::SmallVector<int>(width, 0));
  return builder_.CreateVectorSplat(width, value);
}

void KernelEmitter::matchLanes(llvm::Value*& left, llvm::Value*& right) {
  if (const unsigned lanes = laneCount(left); lanes && !laneCount(right))
    right = broadcast(right, lanes);
  else if (const unsigned rightLanes = laneCount(right); rightLanes && !laneCount(left))
    left = broadcast(left, rightLanes);
}

llvm::Value* KernelEmitter::lanesOf(llvm::Value* value, llvm::Value* like) {
  const unsigned lanes = laneCount(like);
  return lanes ? broadcast(value, lanes) : value;
}

llvm::Value* KernelEmitter::allLanes(unsigned width) {
  return llvm::ConstantInt::getTrue(llvm::FixedVectorType::get(builder_.getInt1Ty(), width));
}

llvm::Value* KernelEmitter::lookupVar(const te::VarNode* var) {
  auto found = vars_.find(var);
  if (found == vars_.end())
    throw Error("kernel " + kernelName_ + ": variable '" + var->name +
                "' is used outside the loop that binds it");
  return found->second;
}

llvm::Value* KernelEmitter::bufferPointer(const te::Buffer& buffer) {
  auto found = buffers_.find(buffer.get());
  if (found == buffers_.end())
    throw Error("kernel " + kernelName_ + ": buffer '" + buffer->name +
                "' is neither an argument nor allocated around its use");
  return found->second;
}

llvm::Value* KernelEmitter::emitExpr(const Expr& expr) {
  const te::ExprNode& node = *expr;
  switch (node.kind) {
  case ExprKind::IntImm:
    if (node.dtype == DataType::Bool)
      return builder_.getInt1(node.intValue != 0);
    return llvm::ConstantInt::get(registerType(node.dtype), node.intValue, /*IsSigned=*/true);
  case ExprKind::FloatImm:
    return llvm::ConstantFP::get(registerType(node.dtype), node.floatValue);
  case ExprKind::Variable:
    return convert(lookupVar(node.var.get()), DataType::Int64, node.dtype);
  case ExprKind::Add:
  case ExprKind::Sub:
  case ExprKind::Mul:
    if (node.dtype == DataType::Int64)
      return emitIntegerSum(expr);
    return emitArithmetic(node);
  case ExprKind::Div:
  case ExprKind::FloorDiv:
  case ExprKind::FloorMod:
  case ExprKind::Min:
  case ExprKind::Max:
    return emitArithmetic(node);
  case ExprKind::Equal:
  case ExprKind::NotEqual:
  case ExprKind::Less:
  case ExprKind::LessEqual:
  case ExprKind::Greater:
  case ExprKind::GreaterEqual:
    return emitComparison(node);
  case ExprKind::And:
  case ExprKind::Or: {
    llvm::Value* left = emitExpr(node.operands[0]);
    const Expr& rightExpr = node.operands[1];
    if (!mayTrap(rightExpr)) {
      llvm::Value* right = emitExpr(rightExpr);
      matchLanes(left, right);
      return node.kind == ExprKind::And ? builder_.CreateAnd(left, right)
                                        : builder_.CreateOr(left, right);
    }
    const auto right = [&] { return emitExpr(rightExpr); };
    const auto constant = [&] { return builder_.getInt1(node.kind == ExprKind::Or); };
    return node.kind == ExprKind::And ? emitChoice(left, right, constant, true)
                                      : emitChoice(left, constant, right, true);
  }
  case ExprKind::Not:
    return builder_.CreateNot(emitExpr(node.operands[0]));
  case ExprKind::Select: {
    if (!lanes_ && dependsOnUnrolledLoop(node.operands[0]) && isLoadChoice(expr))
      return emitChosenLoad(expr);
    const bool lazy = mayTrap(node.operands[1]) || mayTrap(node.operands[2]);
    return emitChoice(
        emitExpr(node.operands[0]), [&] { return emitExpr(node.operands[1]); },
        [&] { return emitExpr(node.operands[2]); }, lazy);
  }
  case ExprKind::Cast:
    return convert(emitExpr(node.operands[0]), node.operands[0]->dtype, node.dtype);
  case ExprKind::Call:
    return emitCall(node);
  case ExprKind::BufferLoad:
    return loadFromMemory(node.buffer, node.operands[0]);
  case ExprKind::Load:
  case ExprKind::Reduce:
    break;
  }
  throw Error("kernel " + kernelName_ + ": " + te::exprKindName(node.kind) +
              " cannot appear in a lowered loop nest (expression " + te::toString(expr) + ")");
}

llvm::Value* KernelEmitter::emitIndex(const Expr& index) {
  return convert(emitExpr(index), index->dtype, DataType::Int64);
}

llvm::Value* KernelEmitter::emitArithmetic(const te::ExprNode& node) {
  llvm::Value* a = emitExpr(node.operands[0]);
  llvm::Value* b = emitExpr(node.operands[1]);
  matchLanes(a, b);
  const DataType dtype = node.operands[0]->dtype;

  if (graph::isFloatingPoint(dtype)) {
    switch (node.kind) {
    case ExprKind::Add:
      return builder_.CreateFAdd(a, b);
    case ExprKind::Sub:
      return builder_.CreateFSub(a, b);
    case ExprKind::Mul:
      return builder_.CreateFMul(a, b);
    case ExprKind::Div:
      return builder_.CreateFDiv(a, b);
    case ExprKind::FloorDiv:
      return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, builder_.CreateFDiv(a, b));
    case ExprKind::FloorMod: {
      llvm::Value* quotient =
          builder_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, builder_.CreateFDiv(a, b));
      return builder_.CreateFSub(a, builder_.CreateFMul(quotient, b));
    }
    case ExprKind::Min:
      return builder_.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, a, b);
    case ExprKind::Max:
      return builder_.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, a, b);
    default:
      break;
    }
  } else {
    // Index arithmetic repeats in every copy of an unrolled body: numbered per block.
    const bool isSignedType = isSigned(dtype);
    const bool nonNegative = isNonNegative(node.operands[0]);
    return numbered(2 * static_cast<int>(node.kind) + isSignedType, a, b,
                    [&] { return emitIntegerArithmetic(node.kind, dtype, a, b, nonNegative); });
  }
  assert(false && "not an arithmetic expression");
  return nullptr;
}

llvm::Value* KernelEmitter::emitIntegerArithmetic(ExprKind kind, DataType dtype, llvm::Value* a,
                                                  llvm::Value* b, bool nonNegativeDividend) {
  const bool isSignedType = isSigned(dtype);
  // Index arithmetic is int64 and never wraps; saying so lets LLVM reason about addresses.
  const bool noSignedWrap = dtype == DataType::Int64;
  switch (kind) {
  case ExprKind::Add:
    return builder_.CreateAdd(a, b, "", false, noSignedWrap);
  case ExprKind::Sub:
    return builder_.CreateSub(a, b, "", false, noSignedWrap);
  case ExprKind::Mul:
    return builder_.CreateMul(a, b, "", false, noSignedWrap);
  case ExprKind::Div:
    return isSignedType ? builder_.CreateSDiv(a, b) : builder_.CreateUDiv(a, b);
  case ExprKind::FloorDiv:
  case ExprKind::FloorMod: {
    const bool isDiv = kind == ExprKind::FloorDiv;
    auto* constantDivisor = llvm::dyn_cast<llvm::ConstantInt>(b);
    const bool positiveDivisor =
        constantDivisor && constantDivisor->getValue().isStrictlyPositive();
    // Loop variables and what they build without subtraction are never negative (a fused or
    // split loop's index), and then no rounding correction is needed.
    if (!isSignedType || (nonNegativeDividend && positiveDivisor))
      return isDiv ? builder_.CreateUDiv(a, b) : builder_.CreateURem(a, b);
    llvm::Value* quotient = builder_.CreateSDiv(a, b);
    llvm::Value* remainder = builder_.CreateSRem(a, b);
    llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
    // The truncating quotient is one too large when the remainder is non-zero and its sign
    // differs from the divisor's; for the usual positive constant divisor that is r < 0.
    llvm::Value* adjust =
        positiveDivisor
            ? builder_.CreateICmpSLT(remainder, zero)
            : builder_.CreateAnd(builder_.CreateICmpNE(remainder, zero),
                                 builder_.CreateICmpSLT(builder_.CreateXor(remainder, b), zero));
    if (isDiv)
      return builder_.CreateSub(quotient, builder_.CreateZExt(adjust, a->getType()));
    return builder_.CreateAdd(remainder, builder_.CreateSelect(adjust, b, zero));
  }
  case ExprKind::Min:
    return builder_.CreateBinaryIntrinsic(
        isSignedType ? llvm::Intrinsic::smin : llvm::Intrinsic::umin, a, b);
  case ExprKind::Max:
    return builder_.CreateBinaryIntrinsic(
        isSignedType ? llvm::Intrinsic::smax : llvm::Intrinsic::umax, a, b);
  default:
    break;
  }
  assert(false && "not an arithmetic expression");
  return nullptr;
}

llvm::Value* KernelEmitter::emitComparison(const te::ExprNode& node) {
  llvm::Value* a = emitExpr(node.operands[0]);
  llvm::Value* b = emitExpr(node.operands[1]);
  matchLanes(a, b);
  const DataType dtype = node.operands[0]->dtype;
  using P = llvm::CmpInst::Predicate;
  P predicate;
  if (graph::isFloatingPoint(dtype)) {
    // Ordered comparisons are false for NaN; "not equal" is true for NaN, as in C++.
    static const P floatPredicates[] = {P::FCMP_OEQ, P::FCMP_UNE, P::FCMP_OLT,
                                        P::FCMP_OLE, P::FCMP_OGT, P::FCMP_OGE};
    predicate = floatPredicates[static_cast<int>(node.kind) - static_cast<int>(ExprKind::Equal)];
    return builder_.CreateFCmp(predicate, a, b);
  }
  static const P signedPredicates[] = {P::ICMP_EQ,  P::ICMP_NE,  P::ICMP_SLT,
                                       P::ICMP_SLE, P::ICMP_SGT, P::ICMP_SGE};
  static const P unsignedPredicates[] = {P::ICMP_EQ,  P::ICMP_NE,  P::ICMP_ULT,
                                         P::ICMP_ULE, P::ICMP_UGT, P::ICMP_UGE};
  const int offset = static_cast<int>(node.kind) - static_cast<int>(ExprKind::Equal);
  predicate = isSigned(dtype) ? signedPredicates[offset] : unsignedPredicates[offset];
  // Padding conditions repeat in every copy of an unrolled tile.
  return numbered(kCompare + static_cast<int>(predicate), a, b,
                  [&] { return builder_.CreateICmp(predicate, a, b); });
}

llvm::Value* KernelEmitter::convert(llvm::Value* value, DataType from, DataType to) {
  if (from == to)
    return value;
  llvm::Type* target = shapedLike(registerType(to), value);
  llvm::Value* zero = llvm::Constant::getNullValue(value->getType());
  if (graph::isFloatingPoint(from)) {
    if (graph::isFloatingPoint(to))
      return builder_.CreateFPCast(value, target);
    if (to == DataType::Bool)
      return builder_.CreateFCmpUNE(value, zero);
    llvm::Type* wide = shapedLike(builder_.getInt64Ty(), value);
    llvm::Value* saturated =
        builder_.CreateIntrinsic(llvm::Intrinsic::fptosi_sat, {wide, value->getType()}, {value});
    return builder_.CreateTrunc(saturated, target);
  }
  const bool fromSigned = isSigned(from);
  if (graph::isFloatingPoint(to))
    return fromSigned ? builder_.CreateSIToFP(value, target) : builder_.CreateUIToFP(value, target);
  if (to == DataType::Bool)
    return builder_.CreateICmpNE(value, zero);
  return builder_.CreateIntCast(value, target, fromSigned);
}

llvm::Value* KernelEmitter::emitChoice(llvm::Value* condition,
                                       const std::function<llvm::Value*()>& whenTrue,
                                       const std::function<llvm::Value*()>& whenFalse, bool lazy) {
  if (!lazy) {
    llvm::Value* a = whenTrue();
    llvm::Value* b = whenFalse();
    matchLanes(a, b);
    return builder_.CreateSelect(condition, lanesOf(a, condition), lanesOf(b, condition));
  }

  if (condition->getType()->isVectorTy()) {
    assert(lanes_ && "vector conditions only arise inside vectorized loops");
    llvm::Value* const outer = lanes_->mask;
    const auto underMask = [&](llvm::Value* mask, const std::function<llvm::Value*()>& emit) {
      lanes_->mask = outer ? builder_.CreateAnd(outer, mask) : mask;
      llvm::Value* result = broadcast(emit(), lanes_->width);
      lanes_->mask = outer;
      return result;
    };
    llvm::Value* a = underMask(condition, whenTrue);
    llvm::Value* b = underMask(builder_.CreateNot(condition), whenFalse);
    return builder_.CreateSelect(condition, a, b);
  }

  auto* trueBlock = llvm::BasicBlock::Create(context_, "choice.true", function_);
  auto* falseBlock = llvm::BasicBlock::Create(context_, "choice.false", function_);
  auto* mergeBlock = llvm::BasicBlock::Create(context_, "choice.end", function_);
  builder_.CreateCondBr(condition, trueBlock, falseBlock);
  builder_.SetInsertPoint(trueBlock);
  llvm::Value* a = whenTrue();
  llvm::BasicBlock* trueEnd = builder_.GetInsertBlock();
  builder_.SetInsertPoint(falseBlock);
  llvm::Value* b = whenFalse();
  llvm::BasicBlock* falseEnd = builder_.GetInsertBlock();
  // One side may be lane-invariant and the other not: widen in each branch before the phi.
  const unsigned lanes = std::max(laneCount(a), laneCount(b));
  builder_.SetInsertPoint(trueEnd);
  if (lanes)
    a = broadcast(a, lanes);
  builder_.CreateBr(mergeBlock);
  builder_.SetInsertPoint(falseEnd);
  if (lanes)
    b = broadcast(b, lanes);
  builder_.CreateBr(mergeBlock);
  builder_.SetInsertPoint(mergeBlock);
  llvm::PHINode* phi = builder_.CreatePHI(a->getType(), 2);
  phi->addIncoming(a, trueEnd);
  phi->addIncoming(b, falseEnd);
  return phi;
}

bool KernelEmitter::dependsOnUnrolledLoop(const Expr& expr) const {
  return std::any_of(unrolledVars_.begin(), unrolledVars_.end(),
                     [&](const te::VarNode* var) { return dependsOn(expr, var); });
}

} // namespace clustune::codegen
