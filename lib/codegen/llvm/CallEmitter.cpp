// Calls of math functions for KernelEmitter (see KernelEmitter.h, and ExprEmitter.cpp for the
// semantics they follow): LLVM intrinsics where LLVM has one, the C library's functions
// otherwise, and on CPU vectors glibc's libmvec (cpu/VectorMath.h) for whole registers.
#include "codegen/cpu/VectorMath.h"
#include "codegen/llvm/KernelEmitter.h"

#include <cassert>
#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/Intrinsics.h>

namespace clustune::codegen {

using graph::DataType;
using te::Expr;

llvm::Value* KernelEmitter::emitCall(const te::ExprNode& node) {
  using te::CallFunction;
  std::vector<llvm::Value*> arguments;
  for (const Expr& operand : node.operands)
    arguments.push_back(emitExpr(operand));
  if (arguments.size() == 2)
    matchLanes(arguments[0], arguments[1]);
  llvm::Value* x = arguments[0];

  if (!graph::isFloatingPoint(node.dtype) && node.function == CallFunction::Abs)
    return isSigned(node.dtype)
               ? builder_.CreateBinaryIntrinsic(llvm::Intrinsic::abs, x, builder_.getFalse())
               : x;
  if (!graph::isFloatingPoint(node.dtype) && node.function == CallFunction::Neg)
    return builder_.CreateNeg(x);

  // float16 computes in float32 (x86 has no half-precision arithmetic before AVX512-FP16);
  // integers compute in float64 and truncate back, as the interpreter does (Pow on int64).
  const DataType computeType = node.dtype == DataType::Float16      ? DataType::Float32
                               : graph::isFloatingPoint(node.dtype) ? node.dtype
                                                                    : DataType::Float64;
  for (std::size_t i = 0; i < arguments.size(); ++i)
    arguments[i] = convert(arguments[i], node.operands[i]->dtype, computeType);
  x = arguments[0];
  llvm::Type* scalarType = x->getType()->getScalarType();

  const auto intrinsic = [&](llvm::Intrinsic::ID id) {
    return builder_.CreateUnaryIntrinsic(id, x);
  };
  // A vector's lanes through libmvec where the CPU target has it (cpu/VectorMath.h), else
  // nullptr.
  const auto vectorLibrary = [&](const char* floatName, const char* doubleName,
                                 const std::vector<llvm::Value*>& values) -> llvm::Value* {
    if (!target_.vectorMath || !laneCount(values.front()))
      return nullptr;
    return emitVectorMathCall(scalarType->isDoubleTy() ? doubleName : floatName, values);
  };
  const auto libraryCallPerLane = [&](const char* floatName, const char* doubleName) {
    if (llvm::Value* vector = vectorLibrary(floatName, doubleName, {x}))
      return vector;
    const char* name = scalarType->isDoubleTy() ? doubleName : floatName;
    auto callee =
        module_.getOrInsertFunction(name, llvm::FunctionType::get(scalarType, {scalarType}, false));
    if (auto* function = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
      function->setDoesNotThrow();
      function->setDoesNotAccessMemory(); // neither tanhf nor erff sets errno
      function->setWillReturn();
    }
    const unsigned lanes = laneCount(x);
    if (!lanes)
      return static_cast<llvm::Value*>(builder_.CreateCall(callee, {x}));
    llvm::Value* result = llvm::PoisonValue::get(x->getType());
    for (unsigned lane = 0; lane < lanes; ++lane) {
      llvm::Value* element = builder_.CreateExtractElement(x, lane);
      result = builder_.CreateInsertElement(result, builder_.CreateCall(callee, {element}), lane);
    }
    return result;
  };

  llvm::Value* result = nullptr;
  switch (node.function) {
  case CallFunction::Exp:
    result = target_.vectorMath && laneCount(x) ? emitVectorExp(x) : nullptr;
    result = result ? result : intrinsic(llvm::Intrinsic::exp);
    break;
  case CallFunction::Log:
    result = vectorLibrary("logf", "log", {x});
    result = result ? result : intrinsic(llvm::Intrinsic::log);
    break;
  case CallFunction::Sqrt:
    result = intrinsic(llvm::Intrinsic::sqrt);
    break;
  case CallFunction::Abs:
    result = intrinsic(llvm::Intrinsic::fabs);
    break;
  case CallFunction::Floor:
    result = intrinsic(llvm::Intrinsic::floor);
    break;
  case CallFunction::Ceil:
    result = intrinsic(llvm::Intrinsic::ceil);
    break;
  case CallFunction::Round:
    result = intrinsic(llvm::Intrinsic::roundeven);
    break;
  case CallFunction::Neg:
    result = builder_.CreateFNeg(x);
    break;
  case CallFunction::Pow:
    result = vectorLibrary("powf", "pow", {x, arguments[1]});
    result =
        result ? result : builder_.CreateBinaryIntrinsic(llvm::Intrinsic::pow, x, arguments[1]);
    break;
  case CallFunction::Sigmoid: {
    // e = exp(-|x|) never overflows: 1 / (1 + e) for x >= 0 and e / (1 + e) for x < 0, which
    // keeps the tiny values of very negative x that 1 / (1 + exp(-x)) would flush to 0 once
    // exp(-x) overflows.
    llvm::Value* one = llvm::ConstantFP::get(x->getType(), 1.0);
    llvm::Value* negativeMagnitude =
        builder_.CreateFNeg(builder_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x));
    llvm::Value* e =
        target_.vectorMath && laneCount(x) ? emitVectorExp(negativeMagnitude) : nullptr;
    e = e ? e : builder_.CreateUnaryIntrinsic(llvm::Intrinsic::exp, negativeMagnitude);
    llvm::Value* numerator = builder_.CreateSelect(
        builder_.CreateFCmpOGE(x, llvm::Constant::getNullValue(x->getType())), one, e);
    result = builder_.CreateFDiv(numerator, builder_.CreateFAdd(one, e));
    break;
  }
  case CallFunction::Tanh:
    result = libraryCallPerLane("tanhf", "tanh");
    break;
  case CallFunction::Erf:
    result = libraryCallPerLane("erff", "erf");
    break;
  case CallFunction::Fmod:
    result = builder_.CreateFRem(x, arguments[1]); // C's fmod, exactly
    break;
  case CallFunction::Sin:
    result = libraryCallPerLane("sinf", "sin");
    break;
  case CallFunction::Cos:
    result = libraryCallPerLane("cosf", "cos");
    break;
  case CallFunction::Tan:
    result = libraryCallPerLane("tanf", "tan");
    break;
  case CallFunction::Asin:
    result = libraryCallPerLane("asinf", "asin");
    break;
  case CallFunction::Acos:
    result = libraryCallPerLane("acosf", "acos");
    break;
  case CallFunction::Atan:
    result = libraryCallPerLane("atanf", "atan");
    break;
  case CallFunction::Sinh:
    result = libraryCallPerLane("sinhf", "sinh");
    break;
  case CallFunction::Cosh:
    result = libraryCallPerLane("coshf", "cosh");
    break;
  case CallFunction::Asinh:
    result = libraryCallPerLane("asinhf", "asinh");
    break;
  case CallFunction::Acosh:
    result = libraryCallPerLane("acoshf", "acosh");
    break;
  case CallFunction::Atanh:
    result = libraryCallPerLane("atanhf", "atanh");
    break;
  }
  assert(result && "unhandled function");
  return convert(result, computeType, node.dtype);
}

// libmvec's exp computes a register whose lanes all lie in its fast range with vector code, and
// calls the scalar function lane by lane for a register with one lane beyond it. Softmax over
// masked attention scores (BERT adds -10000 at padded positions) had such a lane in almost
// every register and ran 8x slower in the model than on the tuner's random inputs. Below
// ln(2^-150) a float exp rounds to +0, and above ln(FLT_MAX) it is +inf (for double: 2^-1075
// and DBL_MAX), so those lanes compute exp(0) and take their exact result afterwards; NaN
// compares false and goes through exp.
llvm::Value* KernelEmitter::emitVectorExp(llvm::Value* x) {
  const bool isDouble = x->getType()->getScalarType()->isDoubleTy();
  auto* lowest = llvm::ConstantFP::get(x->getType(), isDouble ? -745.2 : -104.0);
  auto* highest = llvm::ConstantFP::get(x->getType(), isDouble ? 709.8 : 88.8);
  llvm::Value* underflows = builder_.CreateFCmpOLT(x, lowest);
  llvm::Value* overflows = builder_.CreateFCmpOGT(x, highest);
  llvm::Value* zero = llvm::Constant::getNullValue(x->getType());
  llvm::Value* safe = builder_.CreateSelect(builder_.CreateOr(underflows, overflows), zero, x);
  llvm::Value* e = emitVectorMathCall(isDouble ? "exp" : "expf", {safe});
  if (!e)
    return nullptr;
  e = builder_.CreateSelect(underflows, zero, e);
  return builder_.CreateSelect(overflows, llvm::ConstantFP::getInfinity(x->getType()), e);
}

llvm::Value* KernelEmitter::emitVectorMathCall(const std::string& scalarName,
                                               const std::vector<llvm::Value*>& arguments) {
  const unsigned lanes = laneCount(arguments.front());
  llvm::Type* scalarType = arguments.front()->getType()->getScalarType();
  const unsigned elementBits = scalarType->getPrimitiveSizeInBits();
  // The narrowest register from 128 bits up to the target's widest that holds every lane; a
  // longer vector is cut into registers of the widest, the last one padded.
  unsigned bits = 128;
  while (bits < static_cast<unsigned>(target_.vectorBits) && bits / elementBits < lanes)
    bits *= 2;
  const unsigned width = bits / elementBits;
  const std::string name =
      vectorMathName(scalarName, static_cast<int>(bits), static_cast<int>(width),
                     static_cast<int>(arguments.size()));
  if (name.empty())
    return nullptr;
  auto* registerType = llvm::FixedVectorType::get(scalarType, width);
  llvm::FunctionCallee callee = module_.getOrInsertFunction(
      name, llvm::FunctionType::get(
                registerType, std::vector<llvm::Type*>(arguments.size(), registerType), false));
  if (auto* function = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    function->setDoesNotThrow();
    function->setDoesNotAccessMemory();
    function->setWillReturn();
  }
  std::vector<llvm::Value*> registers;
  for (unsigned start = 0; start < lanes; start += width) {
    llvm::SmallVector<int, 16> part;
    for (unsigned lane = start; lane < start + width; ++lane)
      part.push_back(lane < lanes ? static_cast<int>(lane) : -1);
    std::vector<llvm::Value*> parts;
    for (llvm::Value* argument : arguments)
      parts.push_back(builder_.CreateShuffleVector(argument, part));
    registers.push_back(builder_.CreateCall(callee, parts));
  }
  llvm::Value* whole =
      registers.size() == 1 ? registers.front() : llvm::concatenateVectors(builder_, registers);
  if (laneCount(whole) == lanes)
    return whole;
  return builder_.CreateShuffleVector(whole, llvm::createSequentialMask(0, lanes, 0));
}

} // namespace clustune::codegen
