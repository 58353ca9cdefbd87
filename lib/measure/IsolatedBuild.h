// Builds candidates in child processes, so that a candidate LLVM takes minutes to compile (or
// crashes on) costs one record instead of the whole run. Up to `parallelism` children are
// forked from the calling thread; each builds (buildCandidate) the candidates whose indices it
// is sent, one at a time, and answers with each BuildResult as one frame over a socket pair
// (WorkerProtocol.h). A child still compiling after `timeoutSeconds` is killed and its
// candidate becomes an errors::kCompileTimeout result, a child that dies an errors::kCompile
// result naming the signal; a new child takes over the remaining candidates. The children exit
// when the call returns. A child per call rather than per candidate: LLVM's allocations reuse
// the child's warm heap instead of faulting in fresh pages for every candidate, which cost 11%
// of the build time of a ResNet-50 throughput run (issue 14).
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
                                               const BuildTarget& target, int parallelism,
                                               double timeoutSeconds);

} // namespace clustune::measure
