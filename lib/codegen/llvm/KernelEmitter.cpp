// What every function frame of KernelEmitter shares (see KernelEmitter.h): the emitter's
// set-up, functions with the target's attributes, buffer parameters, entry-block allocations and
// declarations of runtime functions.
#include "codegen/llvm/KernelEmitter.h"

#include <algorithm>

namespace clustune::codegen {

KernelEmitter::KernelEmitter(llvm::Module& module, EmitTarget target,
                             const llvm::TargetMachine& machine)
    : module_(module), context_(module.getContext()), builder_(context_),
      target_(std::move(target)), machine_(machine) {
  // FMA contraction only: a*b+c may round once instead of twice. No reassociation, so float
  // results do not depend on the schedule beyond what the schedule itself reorders.
  llvm::FastMathFlags flags;
  flags.setAllowContract(true);
  builder_.setFastMathFlags(flags);
}

llvm::Function* KernelEmitter::createFunction(llvm::FunctionType* type,
                                              llvm::GlobalValue::LinkageTypes linkage,
                                              const std::string& name) {
  auto* function = llvm::Function::Create(type, linkage, name, module_);
  function->addFnAttr("target-cpu", target_.cpu);
  if (!target_.features.empty())
    function->addFnAttr("target-features", target_.features);
  // Vector code of the schedule's width stays that wide instead of being split to the CPU
  // model's preferred width (skylake-avx512 prefers 256 bits otherwise).
  const std::string vectorBits = std::to_string(target_.vectorBits);
  function->addFnAttr("prefer-vector-width", vectorBits);
  function->addFnAttr("min-legal-vector-width", vectorBits);
  function->setDoesNotThrow();
  return function;
}

void KernelEmitter::addBufferParameterAttributes(llvm::Function* function, unsigned parameter,
                                                 const te::BufferNode& buffer) {
  function->addParamAttr(parameter, llvm::Attribute::NoAlias);
  const std::uint64_t bytes =
      module_.getDataLayout().getTypeAllocSize(storageType(buffer.dtype)).getFixedValue() *
      static_cast<std::uint64_t>(std::max<std::int64_t>(buffer.elements, 0));
  if (bytes > 0)
    function->addDereferenceableParamAttr(parameter, bytes);
  function->getArg(parameter)->setName(buffer.name);
}

llvm::AllocaInst* KernelEmitter::createEntryAlloca(llvm::Type* type, std::uint64_t count,
                                                   unsigned alignment, const std::string& name) {
  llvm::BasicBlock& entry = function_->getEntryBlock();
  llvm::IRBuilder<> entryBuilder(&entry, entry.begin());
  llvm::Type* allocated = count == 1 ? type : llvm::ArrayType::get(type, count);
  llvm::AllocaInst* alloca = entryBuilder.CreateAlloca(allocated, nullptr, name);
  alloca->setAlignment(llvm::Align(alignment));
  return alloca;
}

llvm::FunctionCallee KernelEmitter::runtimeFunction(const char* name, llvm::FunctionType* type) {
  llvm::FunctionCallee callee = module_.getOrInsertFunction(name, type);
  if (auto* function = llvm::dyn_cast<llvm::Function>(callee.getCallee()))
    function->setDoesNotThrow();
  return callee;
}

} // namespace clustune::codegen
