// See LlvmInit.h.
#include "codegen/cpu/LlvmInit.h"

#include <cassert>
#include <iterator>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <mutex>

namespace clustune::codegen {

void initializeNativeLlvmTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
    // Scheduling budgets for the long straight-line blocks of unrolled tiles (issue 14, see
    // docs/measurement.md "Compile time"): both instruction schedulers build a dependence graph
    // per block whose memory edges grow with the square of its loads and stores, and on a
    // block of a few thousand vector operations they took 90% of a 7-second compile. Above
    // 200 memory operations the graph is built with coarser dependences; the post-RA list
    // scheduler, which an out-of-order core hardly needs, is off. LLVM's options are
    // process-wide, and the processes that compile compile only kernels.
    const char* options[] = {"clustune", "-dag-maps-huge-region=200", "-post-RA-scheduler=false"};
    // With an error stream LLVM reports an unknown option instead of exiting; a build of LLVM
    // without these options then simply compiles as before.
    [[maybe_unused]] const bool known =
        llvm::cl::ParseCommandLineOptions(std::size(options), options, "", &llvm::nulls());
    assert(known && "LLVM lacks a scheduling option that the code generator sets");
  });
}

} // namespace clustune::codegen
