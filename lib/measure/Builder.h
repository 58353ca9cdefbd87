// The Builder of measurement (DESIGN §5): turns candidates (a task and its schedule steps) into
// object code for a CPU, or PTX for a GPU, many at a time. Each candidate is lowered to its
// workload, its steps are replayed (a step that does not apply is an invalid_schedule result, not
// an exception), the scheduled workload is lowered to a loop nest and compiled by
// codegen::compileToObject, which builds in a private LLVMContext and so runs on several threads at
// once (codegen::compileToPtx likewise for a CudaTarget). The object bytes or the PTX travel to the
// Runner's worker process, which loads them: nothing built here is executed in this process.
#pragma once

#include "codegen/cpu/CpuTarget.h"
#include "codegen/cuda/CudaCodegen.h"
#include "measure/MeasureInput.h"
#include "measure/SeededInputs.h"

#include <string>
#include <variant>
#include <vector>

namespace clustune::measure {

// What candidates are built for: x86 object code, or PTX for an NVIDIA GPU.
using BuildTarget = std::variant<codegen::CpuTarget, codegen::CudaTarget>;

struct BuildResult {
  std::string objectBytes = {};             // ELF object of a CPU build; empty on error
  codegen::CudaModule gpu = {};             // the PTX and launches of a GPU build
  std::string functionName = {};            // the kernel symbol in objectBytes
  std::vector<ArgumentSpec> arguments = {}; // the kernel's buffers: task inputs, then outputs
  std::string error = {}; // "", errors::kCompile, kCompileTimeout or kInvalidSchedule
  std::string errorDetail = {};
  double compileSeconds = 0;

  bool ok() const { return error.empty(); }
  bool isGpu() const { return !gpu.ptx.empty(); }
};

// Builds one candidate on the calling thread. Never throws for a bad candidate.
BuildResult buildCandidate(const MeasureInput& input, const BuildTarget& target);

// The order in which builds start: the largest auto_unroll_max_step pragma first, input order
// among equals. LLVM's time follows the code a schedule unrolls (in a ResNet-50 throughput run on
// Zen 5 the step-512 candidates compiled in 0.15 s on average, the others in 0.03-0.05 s), and a
// batch waits for its last build: a long one started last builds alone while the other builders
// idle.
std::vector<std::size_t> buildOrder(const std::vector<MeasureInput>& inputs);

// Builds every candidate, `parallelism` (at least 1) at a time, in buildOrder; results in input
// order. With a `timeoutSeconds` above 0 each build runs in a child process and is killed at that
// limit (IsolatedBuild.h); with 0, on threads of this process, without a limit.
std::vector<BuildResult> build(const std::vector<MeasureInput>& inputs, const BuildTarget& target,
                               int parallelism, double timeoutSeconds = 0);

} // namespace clustune::measure
