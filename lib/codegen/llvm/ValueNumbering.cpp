// Value numbering while emitting, for KernelEmitter (see KernelEmitter.h; issue 14).
//
// An unrolled tile repeats its loop body with different constants, and the copies share most
// of what they compute: index arithmetic, and loads of the same operand (the input row that
// every output channel of a convolution tile multiplies). Emitted as written, each copy made
// its own; O3 then spent its time merging them again, and not always successfully (GVN cannot
// merge two gathers with a store to another buffer between them). Here an operation whose
// operands were already combined the same way in the current block reuses that value.
// - Scope: one basic block. A value defined earlier in a block dominates the rest of it, and
//   the emitter only appends to its current block (a parallel loop returns to the block it
//   left, after which memory is forgotten, below).
// - Memory: a load is reused while nothing may have written its buffer. Buffers never alias
//   (arguments are noalias, local buffers are allocations of their own), so a store to one
//   buffer forgets only that buffer's loads, and then stands for a load of the same address
//   and type. A parallel loop's launch may write anything and forgets everything.
#include "codegen/llvm/KernelEmitter.h"

namespace clustune::codegen {

llvm::Value* KernelEmitter::numbered(int operation, llvm::Value* left, llvm::Value* right,
                                     const std::function<llvm::Value*()>& create,
                                     llvm::Type* type) {
  if (llvm::isa<llvm::Constant>(left) && (!right || llvm::isa<llvm::Constant>(right)))
    return create(); // folded by the builder; nothing to number
  const NumberedOperation key{builder_.GetInsertBlock(), operation, left, right, type};
  auto [found, inserted] = numberedOperations_.try_emplace(key, nullptr);
  if (inserted)
    found->second = create();
  return found->second;
}

llvm::Value* KernelEmitter::numberedAddress(llvm::Type* element, llvm::Value* base,
                                            llvm::Value* index) {
  return numbered(
      kAddress, base, index, [&] { return builder_.CreateInBoundsGEP(element, base, index); },
      element);
}

llvm::Value* KernelEmitter::numberedLoad(const te::BufferNode* buffer, llvm::Value* address,
                                         llvm::Type* type, llvm::Value* mask,
                                         const std::function<llvm::Value*()>& create) {
  const MemoryKey key{builder_.GetInsertBlock(), address, type, mask};
  auto& known = knownMemory_[buffer];
  auto [found, inserted] = known.try_emplace(key, nullptr);
  if (inserted)
    found->second = create();
  return found->second;
}

void KernelEmitter::rememberStore(const te::BufferNode* buffer, llvm::Value* address,
                                  llvm::Value* value, llvm::Value* mask) {
  auto& known = knownMemory_[buffer];
  known.clear();
  // A masked store leaves the other lanes as they were: nothing to stand for a load.
  if (!mask)
    known.emplace(MemoryKey{builder_.GetInsertBlock(), address, value->getType(), nullptr}, value);
}

void KernelEmitter::forgetMemory() {
  knownMemory_.clear();
}

} // namespace clustune::codegen
