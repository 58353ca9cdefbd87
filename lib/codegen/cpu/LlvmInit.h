// Internal to lib/codegen/cpu: one-time, thread-safe registration of LLVM's native target, its
// assembly printer and parser, which both the code generator and the JIT need before use.
#pragma once

namespace clustune::codegen {

void initializeNativeLlvmTarget();

} // namespace clustune::codegen
