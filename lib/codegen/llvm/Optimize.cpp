// See Optimize.h.
#include "codegen/llvm/Optimize.h"

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/PassInstrumentation.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/TargetParser/Triple.h>

namespace clustune::codegen {
namespace {

// LLVM's O3, less the passes that cost generated kernels more than they give them.
// LoopLoadElimination forwards a store to a load of the next iteration; the kernels' register
// tiles are unrolled straight-line code, so it hardly ever applies, but its loop-access
// analysis is quadratic in the memory operations of a loop: 80-87% of O3 on the slowest
// modules of a throughput run, and 15% of O3 over all of them (issue 14, docs/measurement.md).
bool worthRunning(llvm::StringRef pass) {
  return pass != "LoopLoadEliminationPass";
}

} // namespace

void optimizeModule(llvm::Module& module, llvm::TargetMachine& machine) {
  llvm::LoopAnalysisManager loopAnalyses;
  llvm::FunctionAnalysisManager functionAnalyses;
  llvm::CGSCCAnalysisManager sccAnalyses;
  llvm::ModuleAnalysisManager moduleAnalyses;
  llvm::PassInstrumentationCallbacks instrumentation;
  instrumentation.registerShouldRunOptionalPassCallback(
      [](llvm::StringRef pass, llvm::Any) { return worthRunning(pass); });
  llvm::PassBuilder passes(&machine, llvm::PipelineTuningOptions(), std::nullopt, &instrumentation);
  // Registered first, so that the pass builder's defaults do not replace it: the C library of
  // the target triple (expf, erff, ... are known and may be folded).
  llvm::TargetLibraryInfoImpl libraryInfo(llvm::Triple(module.getTargetTriple()));
  functionAnalyses.registerPass([&] { return llvm::TargetLibraryAnalysis(libraryInfo); });
  passes.registerModuleAnalyses(moduleAnalyses);
  passes.registerCGSCCAnalyses(sccAnalyses);
  passes.registerFunctionAnalyses(functionAnalyses);
  passes.registerLoopAnalyses(loopAnalyses);
  passes.crossRegisterProxies(loopAnalyses, functionAnalyses, sccAnalyses, moduleAnalyses);
  llvm::ModulePassManager pipeline =
      passes.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  pipeline.run(module, moduleAnalyses);
}

} // namespace clustune::codegen
