// Memory accesses for KernelEmitter (see KernelEmitter.h): loads and stores of buffers, as
// scalars, contiguous vectors (masked under a divergent guard), broadcasts of a lane-invariant
// element, or gathers and scatters of irregular lanes; and the load of a value chosen among
// several buffers (Concat's chain over its inputs) from a selected address. Loads go through
// the value numbering of ValueNumbering.cpp, and stores tell it what they wrote.
#include "codegen/llvm/KernelEmitter.h"
#include "codegen/llvm/LoopAnalysis.h"

#include <cassert>
#include <cstdlib>
#include <llvm/Analysis/TargetTransformInfo.h>
#include <llvm/Target/TargetMachine.h>
#include <numeric>

namespace clustune::codegen {

using graph::DataType;
using te::Expr;
using te::ExprKind;

llvm::Value* KernelEmitter::emitLaneZeroIndex(const Expr& index) {
  assert(lanes_);
  const VectorLanes saved = *lanes_;
  llvm::Value* laneValue = vars_.at(saved.var);
  vars_[saved.var] = saved.laneBase;
  lanes_.reset();
  llvm::Value* result = emitIndex(index);
  lanes_ = saved;
  vars_[saved.var] = laneValue;
  return result;
}

bool KernelEmitter::movesOneElementPerLane(const Expr& index) const {
  // On a GPU also through a tile's // and % (a cooperative fetch's rows and columns), so that
  // its global loads are vectors too. CPU kernels keep the affine rule: the shipped dataset's
  // measurements are of their code.
  if (target_.gpu)
    return laneCoefficient(index, lanes_->var, lanes_->width) == 1;
  return linearCoefficient(index, lanes_->var) == 1;
}

llvm::Align KernelEmitter::vectorAlignment(const Expr& index, llvm::Type* element) const {
  const auto elementBytes =
      static_cast<std::int64_t>(module_.getDataLayout().getTypeStoreSize(element));
  if (!target_.gpu || !lanes_)
    return llvm::Align(static_cast<std::uint64_t>(elementBytes));
  // GPU buffers start at 16-byte boundaries at least: cuMemAlloc's 256, the executors' arena
  // and workspace offsets, shared arrays and allocas. NVPTX loads a vector in one instruction
  // only when it is aligned to its size.
  constexpr std::int64_t kBaseAlignment = 16;
  const std::int64_t multiple = knownMultiple(index, lanes_->var, lanes_->width);
  std::int64_t bytes = multiple == 0 ? kBaseAlignment : multiple * elementBytes;
  std::int64_t align = elementBytes;
  while (align < kBaseAlignment && bytes % (2 * align) == 0)
    align *= 2;
  return llvm::Align(static_cast<std::uint64_t>(align));
}

llvm::Value* KernelEmitter::loadFromMemory(const te::Buffer& buffer, const Expr& index) {
  llvm::Value* base = bufferPointer(buffer);
  llvm::Type* element = storageType(buffer->dtype);
  const llvm::Align align(module_.getDataLayout().getTypeStoreSize(element));
  llvm::Value* loaded;
  if (lanes_ && dependsOn(index, lanes_->var) && movesOneElementPerLane(index)) {
    auto* vectorType = llvm::FixedVectorType::get(element, lanes_->width);
    llvm::Value* address = numberedAddress(element, base, emitLaneZeroIndex(index));
    llvm::Value* mask = lanes_->mask;
    const llvm::Align vectorAlign = vectorAlignment(index, element);
    loaded = numberedLoad(buffer.get(), address, vectorType, mask, [&]() -> llvm::Value* {
      if (mask)
        return builder_.CreateMaskedLoad(vectorType, address, vectorAlign, mask,
                                         llvm::Constant::getNullValue(vectorType));
      return builder_.CreateAlignedLoad(vectorType, address, vectorAlign);
    });
  } else {
    llvm::Value* laneIndices = emitIndex(index);
    // Gathers index with 32-bit lanes wherever the buffer allows (the indices of active lanes
    // are below its size). Besides filling a zmm register with 16 lanes instead of 8, this
    // avoids an LLVM 19 register-allocation bug: a 64-bit-index gather of 32-bit elements
    // (ymm destination, zmm index) can be given the same register for both, an encoding the
    // CPU rejects with SIGILL. test/unit/CpuCodegenGatherTest.cpp holds the kernel that hit it.
    if (laneIndices->getType()->isVectorTy() && buffer->elements <= INT32_MAX) {
      auto* narrow = llvm::FixedVectorType::get(builder_.getInt32Ty(), laneCount(laneIndices));
      laneIndices = numbered(
          kTruncate, laneIndices, nullptr,
          [&] { return builder_.CreateTrunc(laneIndices, narrow); }, narrow);
    }
    llvm::Value* address = numberedAddress(element, base, laneIndices);
    if (lanes_ && (address->getType()->isVectorTy() || lanes_->mask)) {
      // Strided or irregular lanes, or a lane-invariant address that only the active lanes
      // may touch: a gather.
      auto* vectorType = llvm::FixedVectorType::get(element, lanes_->width);
      llvm::Value* addresses = broadcast(address, lanes_->width);
      loaded = numberedLoad(buffer.get(), addresses, vectorType, lanes_->mask,
                            [&] { return emitGather(vectorType, addresses, base, align); });
    } else if (lanes_) {
      // A lane-invariant load in vector code, which its users broadcast. Loaded as a
      // one-element vector so that the broadcast is a shuffle of a load rather than an
      // insertelement of a scalar load: VectorCombine tries to widen the latter into a vector
      // load, proving that safe by scanning back to the start of the block, which is
      // quadratic in an unrolled block (issue 14). Both compile to one broadcast from memory.
      auto* singleType = llvm::FixedVectorType::get(element, 1);
      llvm::Value* single = numberedLoad(buffer.get(), address, singleType, nullptr, [&] {
        return builder_.CreateAlignedLoad(singleType, address, align);
      });
      loaded = numbered(kBroadcast, single, builder_.getInt32(0),
                        [&] { return builder_.CreateExtractElement(single, std::uint64_t{0}); });
    } else {
      loaded = numberedLoad(buffer.get(), address, element, nullptr,
                            [&] { return builder_.CreateAlignedLoad(element, address, align); });
    }
  }
  return fromStorage(loaded, buffer->dtype);
}

llvm::Value* KernelEmitter::emitGather(llvm::VectorType* type, llvm::Value* addresses,
                                       llvm::Value* base, llvm::Align align) {
  llvm::Value* zero = llvm::Constant::getNullValue(type);
  llvm::Value* mask = lanes_->mask;
  if (!mask)
    return builder_.CreateMaskedGather(type, addresses, align, allLanes(lanes_->width), zero);
  const llvm::TargetTransformInfo costs =
      machine_.getTargetTransformInfo(*builder_.GetInsertBlock()->getParent());
  if (costs.isLegalMaskedGather(type, align) && !costs.forceScalarizeMaskedGather(type, align))
    return builder_.CreateMaskedGather(type, addresses, align, mask, zero);
  // Without gather instructions LLVM expands a gather under a variable mask into a branch per
  // lane: an unrolled tile of padded convolution loads becomes thousands of blocks, and the
  // register allocator then takes tens of seconds (issue 14). Inactive lanes read the
  // buffer's first element instead, which every buffer has, so that every lane loads
  // unconditionally and the loads stay straight-line code; the mask then picks zeros.
  llvm::Value* safe = builder_.CreateSelect(mask, addresses, broadcast(base, lanes_->width));
  llvm::Value* loaded =
      builder_.CreateMaskedGather(type, safe, align, allLanes(lanes_->width), zero);
  return builder_.CreateSelect(mask, loaded, zero);
}

void KernelEmitter::storeToMemory(const te::Buffer& buffer, const Expr& index, llvm::Value* value) {
  llvm::Value* base = bufferPointer(buffer);
  llvm::Type* element = storageType(buffer->dtype);
  const llvm::Align align(module_.getDataLayout().getTypeStoreSize(element));
  if (buffer->dtype == DataType::Bool)
    value = builder_.CreateZExt(value, shapedLike(element, value));
  if (lanes_ && dependsOn(index, lanes_->var) && movesOneElementPerLane(index)) {
    value = broadcast(value, lanes_->width);
    llvm::Value* address = numberedAddress(element, base, emitLaneZeroIndex(index));
    const llvm::Align vectorAlign = vectorAlignment(index, element);
    if (lanes_->mask)
      builder_.CreateMaskedStore(value, address, vectorAlign, lanes_->mask);
    else
      builder_.CreateAlignedStore(value, address, vectorAlign);
    rememberStore(buffer.get(), address, value, lanes_->mask);
    return;
  }
  llvm::Value* address = numberedAddress(element, base, emitIndex(index));
  if (lanes_ &&
      (address->getType()->isVectorTy() || value->getType()->isVectorTy() || lanes_->mask)) {
    // A scatter writes lanes in order, so where lanes share an address the last one wins, as
    // in sequential execution.
    llvm::Value* mask = lanes_->mask ? lanes_->mask : allLanes(lanes_->width);
    builder_.CreateMaskedScatter(broadcast(value, lanes_->width), broadcast(address, lanes_->width),
                                 align, mask);
    rememberStore(buffer.get(), address, value, mask);
    return;
  }
  builder_.CreateAlignedStore(value, address, align);
  rememberStore(buffer.get(), address, value, nullptr);
}

llvm::Value* KernelEmitter::emitChosenLoad(const Expr& choice) {
  // The address is chosenBase + referenceIndex, where each side's base is its buffer moved by
  // its index minus the reference index (the first side's). Concat's sides index alike but
  // for a constant, so LLVM folds each base to a constant offset, computes the chosen base
  // once for all elements that share the condition, and sees their loads as consecutive.
  const Expr* reference = &choice;
  while ((*reference)->kind == ExprKind::Select)
    reference = &(*reference)->operands[1];
  llvm::Value* referenceIndex = emitIndex((*reference)->operands[0]);
  llvm::Type* element = storageType(choice->dtype);
  std::function<llvm::Value*(const Expr&)> baseOf = [&](const Expr& expr) -> llvm::Value* {
    if (expr->kind == ExprKind::BufferLoad) {
      // Not inbounds: a base may lie outside its buffer; only the final address is inside.
      llvm::Value* shift = builder_.CreateSub(emitIndex(expr->operands[0]), referenceIndex);
      return builder_.CreateGEP(element, bufferPointer(expr->buffer), shift);
    }
    llvm::Value* condition = emitExpr(expr->operands[0]);
    llvm::Value* whenTrue = baseOf(expr->operands[1]);
    return builder_.CreateSelect(condition, whenTrue, baseOf(expr->operands[2]));
  };
  llvm::Value* address = builder_.CreateGEP(element, baseOf(choice), referenceIndex);
  const llvm::Align align(module_.getDataLayout().getTypeStoreSize(element));
  return fromStorage(builder_.CreateAlignedLoad(element, address, align), choice->dtype);
}

} // namespace clustune::codegen
