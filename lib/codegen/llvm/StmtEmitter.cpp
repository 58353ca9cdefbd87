// Statement emission for KernelEmitter (see KernelEmitter.h): loops of every kind, stores,
// local allocations and guards.
// - Serial loops are plain counted loops; inside the scope of an auto_unroll_max_step pragma, a
//   serial loop whose nest runs at most that many statement instances is unrolled (TVM's rule).
// - Unrolled loops are unrolled here, with the loop variable as a constant in each copy, so
//   that register tiles become straight-line code whatever LLVM's unroller decides.
// - Vectorized loops run as vector lanes when vectorizationBlocker allows it, in vectors of at
//   most kMaxLanes lanes (a longer loop becomes a serial loop over full vectors plus one
//   shorter vector for the rest; a non-power-of-two loop wider than a register becomes
//   register-wide vectors plus one shorter vector); otherwise they become serial loops that
//   ask LLVM's loop vectorizer to try.
// - Allocate: up to kMaxStackBytes on the stack (an entry-block alloca, which LLVM can keep in
//   registers), larger buffers with malloc/free around the body.
#include "codegen/llvm/KernelEmitter.h"
#include "codegen/llvm/LoopAnalysis.h"
#include "support/Error.h"

#include <cassert>
#include <llvm/IR/Metadata.h>

namespace clustune::codegen {
namespace {

constexpr std::int64_t kMaxLanes = 64;
constexpr std::int64_t kMaxStackBytes = 64 * 1024;

} // namespace

void KernelEmitter::emitStmt(const te::Stmt& stmt) {
  if (!stmt)
    return;
  switch (stmt->kind) {
  case te::StmtKind::For:
    emitFor(*stmt);
    return;
  case te::StmtKind::Store:
    emitStore(*stmt);
    return;
  case te::StmtKind::Allocate:
    emitAllocate(*stmt);
    return;
  case te::StmtKind::IfThenElse:
    emitIfThenElse(*stmt);
    return;
  case te::StmtKind::Sequence:
    for (const te::Stmt& child : stmt->sequence)
      emitStmt(child);
    return;
  case te::StmtKind::Barrier:
    emitBarrier();
    return;
  }
}

void KernelEmitter::emitFor(const te::StmtNode& loop) {
  if (loop.extent <= 0)
    return;
  const int enclosingUnrollMaxStep = autoUnrollMaxStep_;
  if (loop.autoUnrollMaxStep > 0)
    autoUnrollMaxStep_ = loop.autoUnrollMaxStep;

  const auto serial = [&](bool hintVectorize) {
    emitCountedLoop(
        builder_.getInt64(0), builder_.getInt64(loop.extent), true,
        [&](llvm::Value* index) {
          vars_[loop.loopVar.get()] = index;
          emitStmt(loop.body);
          vars_.erase(loop.loopVar.get());
        },
        hintVectorize);
  };
  switch (loop.forKind) {
  case te::ForKind::Serial:
    // A loop of one iteration (a split factor of 1) is its body, whatever its kind: a loop
    // would only give LLVM more blocks to clean up.
    if (loop.extent == 1 ||
        (autoUnrollMaxStep_ > 0 && unrollStepCount(loop.body) <= autoUnrollMaxStep_ / loop.extent))
      emitUnrolledFor(loop);
    else
      serial(false);
    break;
  case te::ForKind::Unrolled:
    emitUnrolledFor(loop);
    break;
  case te::ForKind::Vectorized:
    if (loop.extent == 1)
      emitUnrolledFor(loop);
    else if (lanes_ || !vectorizationBlocker(loop).empty())
      serial(true);
    else
      emitVectorizedFor(loop);
    break;
  case te::ForKind::Parallel:
    if (loop.extent == 1)
      emitUnrolledFor(loop);
    else if (lanes_) // vectorizationBlocker keeps parallel loops out of lanes; stay correct anyway
      serial(false);
    else
      emitParallelFor(loop);
    break;
  case te::ForKind::BlockIdxX:
  case te::ForKind::BlockIdxY:
  case te::ForKind::BlockIdxZ:
  case te::ForKind::VThread:
  case te::ForKind::ThreadIdxX:
  case te::ForKind::ThreadIdxY:
  case te::ForKind::ThreadIdxZ:
    emitThreadBoundFor(loop);
    break;
  }
  autoUnrollMaxStep_ = enclosingUnrollMaxStep;
}

void KernelEmitter::emitUnrolledFor(const te::StmtNode& loop) {
  unrolledVars_.push_back(loop.loopVar.get());
  for (std::int64_t i = 0; i < loop.extent; ++i) {
    vars_[loop.loopVar.get()] = builder_.getInt64(i);
    emitStmt(loop.body);
  }
  vars_.erase(loop.loopVar.get());
  unrolledVars_.pop_back();
}

void KernelEmitter::emitVectorizedFor(const te::StmtNode& loop) {
  // A non-power-of-two width wider than a register (28 or 56 columns of an NCHW row) runs as
  // register-wide vectors plus one shorter vector, emitted one after the other: LLVM splits a
  // <28 x float> into pieces joined by shuffles, which kept a convolution's register tile out
  // of registers (22 GFLOP/s instead of 175).
  const std::int64_t registerLanes = std::max(target_.vectorBits / 32, 1);
  const bool powerOfTwo = (loop.extent & (loop.extent - 1)) == 0;
  if (!powerOfTwo && loop.extent > registerLanes && loop.extent <= kMaxLanes) {
    for (std::int64_t base = 0; base < loop.extent; base += registerLanes)
      emitLanes(loop, static_cast<unsigned>(std::min(registerLanes, loop.extent - base)),
                builder_.getInt64(base));
    return;
  }
  const std::int64_t width = std::min(loop.extent, kMaxLanes);
  const std::int64_t fullVectors = loop.extent / width;
  const std::int64_t rest = loop.extent % width;
  if (fullVectors == 1) {
    emitLanes(loop, static_cast<unsigned>(width), builder_.getInt64(0));
  } else {
    emitCountedLoop(
        builder_.getInt64(0), builder_.getInt64(fullVectors), true, [&](llvm::Value* vector) {
          emitLanes(loop, static_cast<unsigned>(width),
                    builder_.CreateMul(vector, builder_.getInt64(width), "", true, true));
        });
  }
  if (rest > 0)
    emitLanes(loop, static_cast<unsigned>(rest), builder_.getInt64(fullVectors * width));
}

void KernelEmitter::emitLanes(const te::StmtNode& loop, unsigned width, llvm::Value* laneBase) {
  assert(!lanes_);
  std::vector<std::uint64_t> offsets(width);
  for (unsigned lane = 0; lane < width; ++lane)
    offsets[lane] = lane;
  llvm::Value* laneValues = llvm::ConstantDataVector::get(context_, offsets);
  if (!llvm::isa<llvm::ConstantInt>(laneBase) || !llvm::cast<llvm::ConstantInt>(laneBase)->isZero())
    laneValues = builder_.CreateAdd(broadcast(laneBase, width), laneValues, "", true, true);
  lanes_ = VectorLanes{loop.loopVar.get(), width, laneBase, nullptr};
  vars_[loop.loopVar.get()] = laneValues;
  emitStmt(loop.body);
  vars_.erase(loop.loopVar.get());
  lanes_.reset();
}

void KernelEmitter::emitCountedLoop(llvm::Value* begin, llvm::Value* end, bool nonEmpty,
                                    const std::function<void(llvm::Value*)>& body,
                                    bool hintVectorize) {
  llvm::BasicBlock* preheader = builder_.GetInsertBlock();
  auto* header = llvm::BasicBlock::Create(context_, "loop", function_);
  auto* exit = llvm::BasicBlock::Create(context_, "loop.end", function_);
  if (nonEmpty)
    builder_.CreateBr(header);
  else
    builder_.CreateCondBr(builder_.CreateICmpSLT(begin, end), header, exit);

  builder_.SetInsertPoint(header);
  llvm::PHINode* index = builder_.CreatePHI(builder_.getInt64Ty(), 2, "i");
  index->addIncoming(begin, preheader);
  body(index);
  llvm::Value* next = builder_.CreateAdd(index, builder_.getInt64(1), "", true, true);
  llvm::BasicBlock* latch = builder_.GetInsertBlock();
  llvm::BranchInst* back = builder_.CreateCondBr(builder_.CreateICmpSLT(next, end), header, exit);
  index->addIncoming(next, latch);
  if (hintVectorize) {
    llvm::Metadata* enable[] = {llvm::MDString::get(context_, "llvm.loop.vectorize.enable"),
                                llvm::ConstantAsMetadata::get(builder_.getTrue())};
    llvm::TempMDTuple placeholder = llvm::MDTuple::getTemporary(context_, {});
    llvm::MDNode* loopId = llvm::MDNode::getDistinct(
        context_, {placeholder.get(), llvm::MDNode::get(context_, enable)});
    loopId->replaceOperandWith(0, loopId); // a loop ID refers to itself
    back->setMetadata(llvm::LLVMContext::MD_loop, loopId);
  }
  builder_.SetInsertPoint(exit);
}

void KernelEmitter::emitStore(const te::StmtNode& store) {
  llvm::Value* value = emitExpr(store.value);
  value = convert(value, store.value->dtype, store.buffer->dtype);
  storeToMemory(store.buffer, store.index, value);
}

void KernelEmitter::emitAllocate(const te::StmtNode& allocate) {
  const te::Buffer& buffer = allocate.buffer;
  if (buffer->scope == te::BufferScope::Shared) {
    buffers_[buffer.get()] = sharedBuffer(buffer);
    emitStmt(allocate.body);
    buffers_.erase(buffer.get());
    return;
  }
  if (buffer->scope != te::BufferScope::Local)
    throw Error("kernel " + kernelName_ + ": Allocate of '" + buffer->name +
                "', which is not a local buffer");
  if (buffer->elements < 0)
    throw Error("kernel " + kernelName_ + ": local buffer '" + buffer->name +
                "' has a negative size");
  llvm::Type* element = storageType(buffer->dtype);
  const auto bytes =
      static_cast<std::int64_t>(module_.getDataLayout().getTypeAllocSize(element).getFixedValue()) *
      buffer->elements;
  llvm::Value* pointer = nullptr;
  const bool onStack = bytes <= kMaxStackBytes;
  if (onStack) {
    // 64-byte alignment lets vector accesses to the start of the buffer use aligned moves.
    pointer =
        createEntryAlloca(element, static_cast<std::uint64_t>(buffer->elements), 64, buffer->name);
  } else {
    auto malloc = runtimeFunction(
        "malloc", llvm::FunctionType::get(builder_.getPtrTy(), {builder_.getInt64Ty()}, false));
    pointer = builder_.CreateCall(malloc, {builder_.getInt64(bytes)}, buffer->name);
  }
  buffers_[buffer.get()] = pointer;
  emitStmt(allocate.body);
  buffers_.erase(buffer.get());
  if (!onStack) {
    auto free = runtimeFunction(
        "free", llvm::FunctionType::get(builder_.getVoidTy(), {builder_.getPtrTy()}, false));
    builder_.CreateCall(free, {pointer});
  }
}

void KernelEmitter::emitUnderMask(llvm::Value* mask, const std::function<void()>& emitBody) {
  assert(lanes_);
  auto* body = llvm::BasicBlock::Create(context_, "lanes.active", function_);
  auto* end = llvm::BasicBlock::Create(context_, "lanes.end", function_);
  builder_.CreateCondBr(builder_.CreateOrReduce(mask), body, end);
  builder_.SetInsertPoint(body);
  llvm::Value* const outer = lanes_->mask;
  lanes_->mask = mask;
  emitBody();
  lanes_->mask = outer;
  builder_.CreateBr(end);
  builder_.SetInsertPoint(end);
}

void KernelEmitter::emitIfThenElse(const te::StmtNode& branch) {
  llvm::Value* condition = emitExpr(branch.condition);
  if (condition->getType()->isVectorTy()) {
    llvm::Value* const outer = lanes_->mask;
    const auto narrowed = [&](llvm::Value* mask) {
      return outer ? builder_.CreateAnd(outer, mask) : mask;
    };
    emitUnderMask(narrowed(condition), [&] { emitStmt(branch.body); });
    if (branch.elseBody)
      emitUnderMask(narrowed(builder_.CreateNot(condition)), [&] { emitStmt(branch.elseBody); });
    return;
  }
  auto* thenBlock = llvm::BasicBlock::Create(context_, "if.then", function_);
  auto* endBlock = llvm::BasicBlock::Create(context_, "if.end", function_);
  llvm::BasicBlock* elseBlock =
      branch.elseBody ? llvm::BasicBlock::Create(context_, "if.else", function_) : endBlock;
  builder_.CreateCondBr(condition, thenBlock, elseBlock);
  builder_.SetInsertPoint(thenBlock);
  emitStmt(branch.body);
  builder_.CreateBr(endBlock);
  if (branch.elseBody) {
    builder_.SetInsertPoint(elseBlock);
    emitStmt(branch.elseBody);
    builder_.CreateBr(endBlock);
  }
  builder_.SetInsertPoint(endBlock);
}

} // namespace clustune::codegen
