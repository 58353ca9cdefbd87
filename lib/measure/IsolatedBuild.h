// Builds candidates in child processes, so that a candidate LLVM takes minutes to compile (or
// crashes on) costs one record instead of the whole run. Each candidate is built by
// buildCandidate in a child forked from the calling thread; at most `parallelism` children run
// at once; a child still compiling after `timeoutSeconds` is killed and its candidate becomes
// an errors::kCompileTimeout result, a child that dies an errors::kCompile result naming the
// signal. The child sends its BuildResult back as one frame over a socket pair (WorkerProtocol.h)
// and exits.
//
// Forking copies only the calling thread: call this while no other thread of the process is
// inside the libraries a build uses (LLVM, the allocator is fork-safe). The Measurer builds
// between runs, with its thread pools idle.
#pragma once

#include "measure/Builder.h"

#include <vector>

namespace clustune::measure {

// Results in input order. Throws clustune::Error when no child process can be created.
std::vector<BuildResult> buildInChildProcesses(const std::vector<MeasureInput>& inputs,
                                               const codegen::CpuTarget& target, int parallelism,
                                               double timeoutSeconds);

} // namespace clustune::measure
