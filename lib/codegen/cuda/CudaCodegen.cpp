// See CudaCodegen.h. One compilation: a fresh LLVMContext and NVPTX TargetMachine, the kernel
// plan (KernelPlan.h), one kernel function per plan entry written by the shared KernelEmitter,
// the verifier, libdevice for the math functions, LLVM's O3 pipeline (which runs NVVMReflect
// for libdevice through the NVPTX target's callbacks), and PTX printed by the back end.
#include "codegen/cuda/CudaCodegen.h"

#include "codegen/cuda/KernelPlan.h"
#include "codegen/cuda/Libdevice.h"
#include "codegen/llvm/KernelEmitter.h"
#include "codegen/llvm/Optimize.h"
#include "support/Error.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <memory>
#include <mutex>

namespace clustune::codegen {
namespace {

constexpr const char* kNvptxTriple = "nvptx64-nvidia-cuda";

std::unique_ptr<llvm::TargetMachine> createNvptxMachine(const CudaTarget& target) {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
  std::string error;
  const llvm::Target* backEnd = llvm::TargetRegistry::lookupTarget(kNvptxTriple, error);
  if (!backEnd)
    throw Error("this LLVM has no NVPTX back end: " + error);
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      backEnd->createMCSubtargetInfo(kNvptxTriple, "", ""));
  if (!subtarget || !subtarget->isCPUStringValid(target.arch))
    throw Error("LLVM's NVPTX back end does not know the architecture '" + target.arch + "'");
  std::unique_ptr<llvm::TargetMachine> machine(
      backEnd->createTargetMachine(kNvptxTriple, target.arch, "", llvm::TargetOptions(),
                                   std::nullopt, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    throw Error("LLVM cannot create an NVPTX target machine for " + target.arch);
  return machine;
}

struct Compilation {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::TargetMachine> machine;
  std::unique_ptr<llvm::Module> module;
  cuda::FunctionPlan plan;
};

Compilation buildModule(const te::LoweredFunction& function, const CudaTarget& target,
                        bool optimized) {
  Compilation compilation;
  compilation.plan = cuda::planKernels(function, target);
  compilation.context = std::make_unique<llvm::LLVMContext>();
  compilation.machine = createNvptxMachine(target);
  compilation.module = std::make_unique<llvm::Module>(function.name, *compilation.context);
  llvm::Module& module = *compilation.module;
  module.setTargetTriple(kNvptxTriple);
  module.setDataLayout(compilation.machine->createDataLayout());

  // Every kernel takes the arguments, then the workspace buffers (the root allocations).
  std::vector<te::Buffer> bound = function.arguments;
  bound.insert(bound.end(), compilation.plan.workspace.begin(), compilation.plan.workspace.end());
  const EmitTarget emitTarget{
      .cpu = target.arch, .features = "", .vectorBits = 128, .vectorMath = false, .gpu = true};
  for (const cuda::KernelPlan& kernel : compilation.plan.kernels)
    KernelEmitter(module, emitTarget, *compilation.machine)
        .emitGpuKernel(kernel.launch.kernel, kernel.body, bound,
                       {.grid = kernel.launch.grid, .block = kernel.launch.block});

  std::string problems;
  llvm::raw_string_ostream problemStream(problems);
  if (llvm::verifyModule(module, &problemStream))
    throw Error("internal error: the CUDA code generator produced invalid LLVM IR for " +
                function.name + ": " + problems);
  if (optimized) {
    cuda::linkMathFromLibdevice(module);
    optimizeModule(module, *compilation.machine);
  }
  return compilation;
}

} // namespace

std::string emitNvptxIr(const te::LoweredFunction& function, const CudaTarget& target,
                        bool optimized) {
  Compilation compilation = buildModule(function, target, optimized);
  std::string text;
  llvm::raw_string_ostream stream(text);
  compilation.module->print(stream, nullptr);
  stream.flush();
  return text;
}

CudaModule compileToPtx(const te::LoweredFunction& function, const CudaTarget& target) {
  Compilation compilation = buildModule(function, target, true);
  llvm::SmallVector<char, 0> ptx;
  llvm::raw_svector_ostream stream(ptx);
  llvm::legacy::PassManager codeGeneration;
  if (compilation.machine->addPassesToEmitFile(codeGeneration, stream, nullptr,
                                               llvm::CodeGenFileType::AssemblyFile))
    throw Error("LLVM cannot emit PTX for " + target.arch);
  codeGeneration.run(*compilation.module);
  CudaModule result;
  result.ptx.assign(ptx.begin(), ptx.end());
  for (const cuda::KernelPlan& kernel : compilation.plan.kernels)
    result.launches.push_back(kernel.launch);
  for (const te::Buffer& buffer : compilation.plan.workspace)
    result.workspace.push_back(
        {buffer->name, buffer->elements * graph::dataTypeBytes(buffer->dtype)});
  return result;
}

} // namespace clustune::codegen
