// See CpuCodegen.h. One compilation: a fresh LLVMContext and TargetMachine, KernelEmitter
// writes the module, the verifier checks it (a failure is a bug in the emitter, reported as an
// Error so that a tuner records it instead of crashing), then the O3 pipeline, then either
// printing or object emission.
#include "codegen/cpu/CpuCodegen.h"

#include "codegen/cpu/LlvmInit.h"
#include "codegen/llvm/KernelEmitter.h"
#include "codegen/llvm/Optimize.h"
#include "support/Error.h"
#include "support/Stopwatch.h"

#include <chrono>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <memory>

namespace clustune::codegen {
namespace {

std::unique_ptr<llvm::TargetMachine> createTargetMachine(const CpuTarget& target) {
  initializeNativeLlvmTarget();
  std::string error;
  const llvm::Target* backEnd = llvm::TargetRegistry::lookupTarget(target.triple, error);
  if (!backEnd)
    throw Error("no LLVM back end for target triple '" + target.triple + "': " + error);
  // Checked before the target machine exists, which would print a warning and go on.
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      backEnd->createMCSubtargetInfo(target.triple, "", ""));
  if (!subtarget || !subtarget->isCPUStringValid(target.cpu))
    throw Error("LLVM does not know the CPU '" + target.cpu + "' for '" + target.triple + "'");
  // Position-independent code with the small code model: ORC's JITLink resolves calls to the
  // runtime and the C library through its own stubs, wherever they are.
  std::unique_ptr<llvm::TargetMachine> machine(backEnd->createTargetMachine(
      target.triple, target.cpu, target.features, llvm::TargetOptions(), llvm::Reloc::PIC_,
      llvm::CodeModel::Small, llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    throw Error("LLVM cannot create a target machine for '" + target.triple + "'");
  return machine;
}

// A module with the context and machine it belongs to; members are destroyed in reverse
// order, so the module goes before its context.
struct Compilation {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::TargetMachine> machine;
  std::unique_ptr<llvm::Module> module;
};

Compilation buildModule(const te::LoweredFunction& function, const CpuTarget& target,
                        bool optimized, CompileStageSeconds& stages) {
  auto start = SteadyClock::now();
  Compilation compilation;
  compilation.context = std::make_unique<llvm::LLVMContext>();
  compilation.machine = createTargetMachine(target);
  compilation.module = std::make_unique<llvm::Module>(function.name, *compilation.context);
  llvm::Module& module = *compilation.module;
  module.setTargetTriple(target.triple);
  module.setDataLayout(compilation.machine->createDataLayout());

  KernelEmitter(module,
                {.cpu = target.cpu,
                 .features = target.features,
                 .vectorBits = target.vectorBits,
                 .vectorMath = target.vectorMath},
                *compilation.machine)
      .emitKernel(function);

  std::string problems;
  llvm::raw_string_ostream problemStream(problems);
  if (llvm::verifyModule(module, &problemStream))
    throw Error("internal error: the CPU code generator produced invalid LLVM IR for " +
                function.name + ": " + problems);
  stages.emit = secondsSince(start);
  start = SteadyClock::now();
  if (optimized)
    optimizeModule(module, *compilation.machine);
  stages.optimize = secondsSince(start);
  return compilation;
}

} // namespace

std::string emitLlvmIr(const te::LoweredFunction& function, const CpuTarget& target,
                       bool optimized) {
  CompileStageSeconds stages;
  Compilation compilation = buildModule(function, target, optimized, stages);
  std::string text;
  llvm::raw_string_ostream stream(text);
  compilation.module->print(stream, nullptr);
  stream.flush();
  return text;
}

std::string compileToObject(const te::LoweredFunction& function, const CpuTarget& target,
                            CompileStageSeconds* stages) {
  CompileStageSeconds local;
  CompileStageSeconds& times = stages ? *stages : local;
  Compilation compilation = buildModule(function, target, true, times);
  const auto start = SteadyClock::now();
  llvm::SmallVector<char, 0> object;
  llvm::raw_svector_ostream stream(object);
  llvm::legacy::PassManager codeGeneration;
  if (compilation.machine->addPassesToEmitFile(codeGeneration, stream, nullptr,
                                               llvm::CodeGenFileType::ObjectFile))
    throw Error("LLVM cannot emit object files for '" + target.triple + "'");
  codeGeneration.run(*compilation.module);
  times.codegen = secondsSince(start);
  return std::string(object.begin(), object.end());
}

} // namespace clustune::codegen
