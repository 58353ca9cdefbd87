// The GPU parts of KernelEmitter (see codegen/llvm/KernelEmitter.h and cuda/CudaCodegen.h): the
// frame of one CUDA kernel and the loops bound to block and thread indices.
//
// A kernel is `void <name>(ptr, ...)` with the ptx_kernel calling convention (and the
// nvvm.annotations entry that marks kernels for LLVM's NVPTX passes), one generic pointer per
// buffer; NVPTX's argument lowering turns them into global-memory pointers. maxntid tells ptxas
// the block size, so that it may use the registers that size leaves.
#include "codegen/llvm/KernelEmitter.h"
#include "support/Error.h"

#include <algorithm>
#include <cassert>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <set>

namespace clustune::codegen {
namespace {

llvm::Intrinsic::ID indexRegister(te::ForKind kind) {
  switch (kind) {
  case te::ForKind::BlockIdxX:
    return llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x;
  case te::ForKind::BlockIdxY:
    return llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y;
  case te::ForKind::BlockIdxZ:
    return llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z;
  case te::ForKind::ThreadIdxX:
    return llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x;
  case te::ForKind::ThreadIdxY:
    return llvm::Intrinsic::nvvm_read_ptx_sreg_tid_y;
  default:
    assert(kind == te::ForKind::ThreadIdxZ);
    return llvm::Intrinsic::nvvm_read_ptx_sreg_tid_z;
  }
}

// The launch extent along the axis that `kind` binds.
std::int64_t launchExtent(te::ForKind kind, const GpuLaunch& launch) {
  switch (kind) {
  case te::ForKind::BlockIdxX:
    return launch.grid[0];
  case te::ForKind::BlockIdxY:
    return launch.grid[1];
  case te::ForKind::BlockIdxZ:
    return launch.grid[2];
  case te::ForKind::ThreadIdxX:
    return launch.block[0];
  case te::ForKind::ThreadIdxY:
    return launch.block[1];
  default:
    return launch.block[2];
  }
}

void annotate(llvm::Function* kernel, const char* key, std::int64_t value) {
  llvm::Module& module = *kernel->getParent();
  llvm::LLVMContext& context = module.getContext();
  llvm::Metadata* operands[] = {
      llvm::ValueAsMetadata::get(kernel), llvm::MDString::get(context, key),
      llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(context),
                                                           static_cast<std::uint64_t>(value)))};
  module.getOrInsertNamedMetadata("nvvm.annotations")
      ->addOperand(llvm::MDNode::get(context, operands));
}

} // namespace

void KernelEmitter::emitGpuKernel(const std::string& name, const te::Stmt& body,
                                  const std::vector<te::Buffer>& parameters,
                                  const GpuLaunch& launch) {
  assert(target_.gpu);
  kernelName_ = name;
  gpuLaunch_ = launch;
  std::set<const te::BufferNode*> distinct;
  for (const te::Buffer& parameter : parameters)
    if (!distinct.insert(parameter.get()).second)
      throw Error("kernel " + name + ": buffer '" + parameter->name + "' is passed twice");
  const std::vector<llvm::Type*> parameterTypes(parameters.size(), builder_.getPtrTy());
  llvm::Function* kernel =
      createFunction(llvm::FunctionType::get(builder_.getVoidTy(), parameterTypes, false),
                     llvm::GlobalValue::ExternalLinkage, name);
  kernel->setCallingConv(llvm::CallingConv::PTX_Kernel);
  annotate(kernel, "kernel", 1);
  annotate(kernel, "maxntidx", launch.block[0]);
  annotate(kernel, "maxntidy", launch.block[1]);
  annotate(kernel, "maxntidz", launch.block[2]);
  for (unsigned i = 0; i < parameters.size(); ++i) {
    addBufferParameterAttributes(kernel, i, *parameters[i]);
    buffers_[parameters[i].get()] = kernel->getArg(i);
  }
  function_ = kernel;
  builder_.SetInsertPoint(llvm::BasicBlock::Create(context_, "entry", kernel));
  emitStmt(body);
  builder_.CreateRetVoid();
  buffers_.clear();
  sharedBuffers_.clear();
  function_ = nullptr;
}

void KernelEmitter::emitBarrier() {
  if (!target_.gpu)
    throw Error("kernel " + kernelName_ + ": a barrier needs a GPU target");
  if (lanes_)
    throw Error("kernel " + kernelName_ + ": a barrier inside a vectorized loop");
  builder_.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
  forgetMemory(); // other threads wrote what the next loads read
}

llvm::Value* KernelEmitter::sharedBuffer(const te::Buffer& buffer) {
  if (!target_.gpu)
    throw Error("kernel " + kernelName_ + ": shared buffer '" + buffer->name +
                "' needs a GPU target");
  if (auto found = sharedBuffers_.find(buffer.get()); found != sharedBuffers_.end())
    return found->second;
  auto* type =
      llvm::ArrayType::get(storageType(buffer->dtype),
                           static_cast<std::uint64_t>(std::max<std::int64_t>(buffer->elements, 1)));
  constexpr unsigned kSharedAddressSpace = 3;
  // PTX names allow no '.' (NVPTX would spell it "_$_"): "g_kernel0_A_shared".
  std::string name = kernelName_ + "_" + buffer->name;
  std::replace(name.begin(), name.end(), '.', '_');
  auto* array = new llvm::GlobalVariable(module_, type, false, llvm::GlobalValue::InternalLinkage,
                                         llvm::UndefValue::get(type), name, nullptr,
                                         llvm::GlobalValue::NotThreadLocal, kSharedAddressSpace);
  array->setAlignment(llvm::Align(16)); // float4 accesses
  llvm::Value* pointer = llvm::ConstantExpr::getAddrSpaceCast(array, builder_.getPtrTy());
  sharedBuffers_[buffer.get()] = pointer;
  return pointer;
}

void KernelEmitter::emitThreadBoundFor(const te::StmtNode& loop) {
  if (!target_.gpu)
    throw Error("kernel " + kernelName_ + ": loop '" + loop.loopVar->name + "' is bound to " +
                te::forKindName(loop.forKind) + ", which a CPU target cannot run");
  if (lanes_)
    throw Error("kernel " + kernelName_ + ": loop '" + loop.loopVar->name + "' is bound to " +
                te::forKindName(loop.forKind) + " inside a vectorized loop");
  // Virtual threads interleave within one thread: their copies are independent work for the
  // instruction scheduler, as TVM's vthread injection makes them. The copies share the stage's
  // auto_unroll_max_step, so that a thread's unrolled code stays within it (eight copies of a
  // 1024-step body of libdevice exp took LLVM minutes).
  if (loop.forKind == te::ForKind::VThread) {
    const int enclosingUnrollMaxStep = autoUnrollMaxStep_;
    autoUnrollMaxStep_ =
        static_cast<int>(autoUnrollMaxStep_ / std::max<std::int64_t>(loop.extent, 1));
    emitUnrolledFor(loop);
    autoUnrollMaxStep_ = enclosingUnrollMaxStep;
    return;
  }
  llvm::Value* index =
      builder_.CreateZExt(builder_.CreateIntrinsic(indexRegister(loop.forKind), {}, {}),
                          builder_.getInt64Ty(), loop.loopVar->name);
  const auto emitBody = [&] {
    vars_[loop.loopVar.get()] = index;
    emitStmt(loop.body);
    vars_.erase(loop.loopVar.get());
  };
  if (loop.extent >= launchExtent(loop.forKind, gpuLaunch_)) {
    emitBody();
    return;
  }
  // A loop shorter than the launch along its axis: the other blocks or threads skip it.
  llvm::BasicBlock* inside =
      llvm::BasicBlock::Create(context_, loop.loopVar->name + ".bound", function_);
  llvm::BasicBlock* after =
      llvm::BasicBlock::Create(context_, loop.loopVar->name + ".after", function_);
  builder_.CreateCondBr(builder_.CreateICmpULT(index, builder_.getInt64(loop.extent)), inside,
                        after);
  builder_.SetInsertPoint(inside);
  emitBody();
  builder_.CreateBr(after);
  builder_.SetInsertPoint(after);
  forgetMemory();
}

} // namespace clustune::codegen
