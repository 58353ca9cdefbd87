// Internal to lib/codegen (includes LLVM): the optimisation pipeline of generated kernels,
// the same for every back end.
#pragma once

#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

namespace clustune::codegen {

// LLVM's O3 for `machine`, less the passes that cost generated kernels more than they give.
void optimizeModule(llvm::Module& module, llvm::TargetMachine& machine);

} // namespace clustune::codegen
