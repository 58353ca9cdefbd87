// See LlvmInit.h.
#include "codegen/cpu/LlvmInit.h"

#include <llvm/Support/TargetSelect.h>
#include <mutex>

namespace clustune::codegen {

void initializeNativeLlvmTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

} // namespace clustune::codegen
