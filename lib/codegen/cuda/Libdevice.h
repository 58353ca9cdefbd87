// Internal to lib/codegen/cuda (includes LLVM): the math functions of generated kernels, which
// the NVPTX back end has no instructions for, as calls into CUDA's libdevice.
#pragma once

#include <llvm/IR/Module.h>
#include <string>

namespace clustune::codegen::cuda {

// Replaces every call of llvm.exp, llvm.log and llvm.pow, and of the C library's math
// functions that the emitter calls (tanhf, erff, sinf, ...), by libdevice's __nv_ function of
// the same name, one call per lane for vectors; then links the functions used from libdevice
// (libdevicePath()) and makes them internal, so that the optimiser inlines them. Does nothing,
// and needs no libdevice, when the module calls none.
void linkMathFromLibdevice(llvm::Module& module);

// Where libdevice.10.bc is: $CLUSTUNE_LIBDEVICE, else nvvm/libdevice/libdevice.10.bc under
// $CUDA_HOME or /usr/local/cuda; an Error naming the places tried when none has it.
std::string libdevicePath();

} // namespace clustune::codegen::cuda
