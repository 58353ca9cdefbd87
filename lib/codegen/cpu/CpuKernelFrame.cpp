// The CPU frames of KernelEmitter (see codegen/llvm/KernelEmitter.h): the kernel's entry point
// and the outlined bodies of parallel loops.
//
// Each loop nest is emitted into an internal, always-inlined "body" function whose buffer
// parameters are noalias and dereferenceable, and is reached through a thin wrapper: the entry
// point `void <name>(void** arguments)` loads the argument pointers and calls it; a parallel
// loop's wrapper `void <name>.parallel<k>(i64 begin, i64 end, void* closure)` loads the
// captured values from the closure. When LLVM inlines the body, the noalias parameters turn
// into alias scopes, so loads of one buffer can move across stores to another; that is what
// keeps a matmul's operands in registers across stores to its output. (Argument buffers must
// therefore not overlap, which the graph executor guarantees.)
//
// A parallel loop captures what its body uses from the enclosing code: buffer pointers
// (arguments and local buffers) and the values of enclosing loop variables; loop variables
// that are constants there (unrolled copies) are folded in instead. The closure lives in the
// launching function's frame, which stays alive while clustune_parallel_for runs the chunks.
#include "codegen/llvm/KernelEmitter.h"
#include "codegen/llvm/LoopAnalysis.h"
#include "support/Error.h"

#include <cassert>
#include <set>

namespace clustune::codegen {

void KernelEmitter::emitKernel(const te::LoweredFunction& kernel) {
  kernelName_ = kernel.name;
  if (kernel.name.empty())
    throw Error("a kernel needs a name");
  // Functions the generated code may call (JitLoader.cpp binds them); a kernel of the same
  // name would replace them.
  static const std::set<std::string> reserved{"clustune_parallel_for",
                                              "malloc",
                                              "free",
                                              "memset",
                                              "memcpy",
                                              "memmove",
                                              "expf",
                                              "logf",
                                              "tanhf",
                                              "erff",
                                              "powf",
                                              "fmodf",
                                              "exp",
                                              "log",
                                              "tanh",
                                              "erf",
                                              "pow",
                                              "fmod",
                                              "sinf",
                                              "sin",
                                              "cosf",
                                              "cos",
                                              "tanf",
                                              "tan",
                                              "asinf",
                                              "asin",
                                              "acosf",
                                              "acos",
                                              "atanf",
                                              "atan",
                                              "sinhf",
                                              "sinh",
                                              "coshf",
                                              "cosh",
                                              "asinhf",
                                              "asinh",
                                              "acoshf",
                                              "acosh",
                                              "atanhf",
                                              "atanh",
                                              "sincosf",
                                              "sincos"};
  // libmvec's functions (cpu/VectorMath.h) are named by the vector function ABI.
  if (reserved.count(kernel.name) || kernel.name.rfind("_ZGV", 0) == 0)
    throw Error("kernel name '" + kernel.name + "' is reserved for a runtime function");
  if (!kernel.body)
    throw Error("kernel " + kernel.name + " has no body");
  std::set<const te::BufferNode*> distinct;
  for (const te::Buffer& argument : kernel.arguments) {
    if (argument->scope != te::BufferScope::Argument)
      throw Error("kernel " + kernel.name + ": argument '" + argument->name +
                  "' is a local buffer");
    if (!distinct.insert(argument.get()).second)
      throw Error("kernel " + kernel.name + ": buffer '" + argument->name + "' is passed twice");
  }

  llvm::Type* pointer = builder_.getPtrTy();
  const std::vector<llvm::Type*> parameterTypes(kernel.arguments.size(), pointer);
  llvm::Function* body =
      createFunction(llvm::FunctionType::get(builder_.getVoidTy(), parameterTypes, false),
                     llvm::GlobalValue::InternalLinkage, kernel.name + ".body");
  body->addFnAttr(llvm::Attribute::AlwaysInline);
  for (unsigned i = 0; i < kernel.arguments.size(); ++i) {
    addBufferParameterAttributes(body, i, *kernel.arguments[i]);
    buffers_[kernel.arguments[i].get()] = body->getArg(i);
  }
  function_ = body;
  builder_.SetInsertPoint(llvm::BasicBlock::Create(context_, "entry", body));
  emitStmt(kernel.body);
  builder_.CreateRetVoid();
  buffers_.clear();

  llvm::Function* entry =
      createFunction(llvm::FunctionType::get(builder_.getVoidTy(), {pointer}, false),
                     llvm::GlobalValue::ExternalLinkage, kernel.name);
  entry->getArg(0)->setName("arguments");
  function_ = entry;
  builder_.SetInsertPoint(llvm::BasicBlock::Create(context_, "entry", entry));
  std::vector<llvm::Value*> pointers;
  for (unsigned i = 0; i < kernel.arguments.size(); ++i) {
    llvm::Value* slot = builder_.CreateConstInBoundsGEP1_64(pointer, entry->getArg(0), i);
    pointers.push_back(
        builder_.CreateAlignedLoad(pointer, slot, llvm::Align(8), kernel.arguments[i]->name));
  }
  builder_.CreateCall(body, pointers);
  builder_.CreateRetVoid();
  function_ = nullptr;
}

void KernelEmitter::emitParallelFor(const te::StmtNode& loop) {
  assert(!lanes_);
  // What the body needs from here, in a deterministic order.
  const UsedValues used = collectUsedValues(loop.body);
  std::vector<const te::BufferNode*> capturedBuffers;
  for (const te::Buffer& buffer : used.buffers)
    if (buffers_.count(buffer.get()))
      capturedBuffers.push_back(buffer.get());
  std::vector<const te::VarNode*> capturedVars;
  std::vector<std::pair<const te::VarNode*, llvm::Value*>> constantVars;
  for (const te::VarNode* var : used.vars) {
    auto found = vars_.find(var);
    if (var == loop.loopVar.get() || found == vars_.end())
      continue;
    if (llvm::isa<llvm::Constant>(found->second))
      constantVars.emplace_back(var, found->second);
    else
      capturedVars.push_back(var);
  }

  llvm::Type* i64 = builder_.getInt64Ty();
  llvm::Type* pointer = builder_.getPtrTy();
  std::vector<llvm::Type*> capturedTypes(capturedBuffers.size(), pointer);
  capturedTypes.insert(capturedTypes.end(), capturedVars.size(), i64);
  std::vector<llvm::Type*> bodyParameters{i64, i64};
  bodyParameters.insert(bodyParameters.end(), capturedTypes.begin(), capturedTypes.end());
  auto* closureType = llvm::StructType::get(context_, capturedTypes);

  const std::string name = kernelName_ + ".parallel" + std::to_string(outlinedCount_++);
  llvm::Function* body =
      createFunction(llvm::FunctionType::get(builder_.getVoidTy(), bodyParameters, false),
                     llvm::GlobalValue::InternalLinkage, name + ".body");
  body->addFnAttr(llvm::Attribute::AlwaysInline);
  llvm::Function* wrapper =
      createFunction(llvm::FunctionType::get(builder_.getVoidTy(), {i64, i64, pointer}, false),
                     llvm::GlobalValue::InternalLinkage, name);

  // Emit the body function with only the captured values in scope.
  llvm::Function* const outerFunction = function_;
  const llvm::IRBuilderBase::InsertPoint outerInsertPoint = builder_.saveIP();
  auto outerVars = std::move(vars_);
  auto outerBuffers = std::move(buffers_);
  vars_.clear();
  buffers_.clear();
  function_ = body;
  builder_.SetInsertPoint(llvm::BasicBlock::Create(context_, "entry", body));
  body->getArg(0)->setName("begin");
  body->getArg(1)->setName("end");
  unsigned parameter = 2;
  for (const te::BufferNode* buffer : capturedBuffers) {
    addBufferParameterAttributes(body, parameter, *buffer);
    buffers_[buffer] = body->getArg(parameter++);
  }
  for (const te::VarNode* var : capturedVars) {
    body->getArg(parameter)->setName(var->name);
    vars_[var] = body->getArg(parameter++);
  }
  for (const auto& [var, value] : constantVars)
    vars_[var] = value;
  emitCountedLoop(body->getArg(0), body->getArg(1), false, [&](llvm::Value* index) {
    vars_[loop.loopVar.get()] = index;
    emitStmt(loop.body);
    vars_.erase(loop.loopVar.get());
  });
  builder_.CreateRetVoid();

  // The wrapper unpacks the closure.
  function_ = wrapper;
  builder_.SetInsertPoint(llvm::BasicBlock::Create(context_, "entry", wrapper));
  std::vector<llvm::Value*> arguments{wrapper->getArg(0), wrapper->getArg(1)};
  for (unsigned field = 0; field < capturedTypes.size(); ++field) {
    llvm::Value* address = builder_.CreateStructGEP(closureType, wrapper->getArg(2), field);
    arguments.push_back(builder_.CreateLoad(capturedTypes[field], address));
  }
  builder_.CreateCall(body, arguments);
  builder_.CreateRetVoid();

  function_ = outerFunction;
  builder_.restoreIP(outerInsertPoint);
  vars_ = std::move(outerVars);
  buffers_ = std::move(outerBuffers);

  // Fill the closure and launch.
  llvm::AllocaInst* closure = createEntryAlloca(closureType, 1, 8, name + ".closure");
  unsigned field = 0;
  for (const te::BufferNode* buffer : capturedBuffers)
    builder_.CreateStore(buffers_.at(buffer),
                         builder_.CreateStructGEP(closureType, closure, field++));
  for (const te::VarNode* var : capturedVars)
    builder_.CreateStore(vars_.at(var), builder_.CreateStructGEP(closureType, closure, field++));
  auto parallelFor = runtimeFunction(
      "clustune_parallel_for",
      llvm::FunctionType::get(builder_.getInt32Ty(), {i64, pointer, pointer}, false));
  builder_.CreateCall(parallelFor, {builder_.getInt64(loop.extent), wrapper, closure});
  forgetMemory();
}

} // namespace clustune::codegen
