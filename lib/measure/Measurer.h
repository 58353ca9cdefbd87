// Measurement end to end (DESIGN §5): builds a batch of candidates in parallel (Builder.h), runs
// each one in the isolated worker (Runner.h), on the CPU or the GPU, and checks its outputs against
// the task's reference (Correctness.h), giving one MeasureResult per candidate, errors included.
// This is what clustune-measure and the tuner's measurement rounds call. The environment variable
// CLUSTUNE_MEASURE_FAULTS plants faults in chosen candidates, for tests (FaultInjection.h).
#pragma once

#include "codegen/cpu/CpuTarget.h"
#include "measure/Builder.h"
#include "measure/MeasureInput.h"
#include "measure/Runner.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace clustune::measure {

struct MeasureOptions {
  RunnerOptions runner = {};
  // Candidates are built as PTX for this GPU and run on the worker's GPU; references are still
  // computed on the CPU (the interpreter, or the naive schedule compiled for the CPU target).
  std::optional<codegen::CudaTarget> gpu = {};
  int buildParallelism = 1; // candidates compiled at once
  // A candidate still compiling after this many seconds is killed and recorded as
  // compile_timeout (builds then run in child processes, IsolatedBuild.h); 0: no limit, builds
  // on threads of this process.
  double buildTimeoutSeconds = 0;
  bool checkCorrectness = true;
  // Tasks up to this many FLOPs take their reference from the interpreter (independent of code
  // generation, and under a second there); larger ones from the naive schedule (the initial
  // State: plain loops, no annotations), compiled and run once in the worker, since the
  // interpreter needs minutes for a 10 GFLOP task. A naive kernel that fails falls back to
  // the interpreter. 0 makes every reference an interpreter one.
  std::int64_t interpreterReferenceMaxFlops = 50'000'000;
  double referenceTimeoutSeconds = 600; // for one run of a naive kernel
  // A candidate whose first run takes more than this many times the best cost of its task
  // (measured before, or by the first run of a candidate of the same batch) is timed by one
  // repeat instead of every repeat, or by that first run alone when it lasted at least
  // kWarmUpIsAMeasurementSeconds (TimingOptions::slowRunSeconds): it cannot be a best schedule,
  // its label is below 1/factor, and slow candidates took most of the running time. With a
  // factor, measure() runs every candidate of a batch once before timing any. 0 times every
  // candidate fully, in order.
  double slowCandidateFactor = 3;
};

// Wall seconds spent in each part of measuring, summed over a Measurer's life: building the
// candidates, running them in the worker (loading, warm-up and timed runs), computing the
// tasks' reference outputs and checking outputs against them.
struct MeasureProfile {
  double build = 0;
  double run = 0;
  double reference = 0;
  double check = 0;
};

// Whether a candidate's screening run (its first run, or one timed run after a warm-up too short
// to be a measurement) is its whole measurement: it took over `factor` times its task's best,
// and at least as long as a repeat must and kWarmUpIsAMeasurementSeconds.
bool screeningRunIsTheMeasurement(double runSeconds, double bestSeconds, double factor,
                                  double minRepeatSeconds);

// Throws clustune::Error where `timing` cannot be kept on the target: cold weights
// (TimingOptions::coldWeights) on a GPU.
void checkTimingForTarget(const TimingOptions& timing, bool gpu);

class Measurer {
public:
  // Throws clustune::Error as checkTimingForTarget does.
  Measurer(codegen::CpuTarget target, MeasureOptions options);

  // One result per input, in order. Throws clustune::Error only when no worker can be started.
  std::vector<MeasureResult> measure(const std::vector<MeasureInput>& inputs);
  // Runs and checks one candidate that is already built (by build(), or by hand in tests).
  MeasureResult measureBuilt(const graph::Task& task, const BuildResult& built);

  // Drops the cached reference outputs (a campaign moving on to the next task frees them).
  void forgetReferences() {
    references_.clear();
    naiveBuilds_.clear();
  }

  Runner& runner() { return runner_; }
  const MeasureProfile& profile() const { return profile_; }

private:
  // Runs a built candidate with `timing`, checking its outputs when `check`.
  MeasureResult runBuilt(const graph::Task& task, const BuildResult& built,
                         const TimingOptions& timing, bool check);
  // measure() with slowCandidateFactor: a screening run of the whole batch first.
  std::vector<MeasureResult> measureScreened(const std::vector<MeasureInput>& inputs,
                                             const std::vector<BuildResult>& built);
  // Keeps the least mean cost of each task, the yardstick of slow candidates.
  void noteCost(const std::string& key, const MeasureResult& result);

  struct Reference {
    std::vector<te::TensorData> outputs;
    std::string error; // why no reference could be computed
  };
  // The naive schedule's outputs, compiled and run in the worker; nullopt with `why` set when
  // it could not be built or run.
  std::optional<std::vector<te::TensorData>> compiledNaiveOutputs(const graph::Task& task,
                                                                  std::string& why);
  // Computed on first use and kept per workload key: every candidate of a task shares it.
  const Reference& referenceFor(const graph::Task& task);
  // Whether the task's reference is the compiled naive schedule rather than the interpreter.
  bool hasCompiledReference(const graph::Task& task) const;

  codegen::CpuTarget target_;
  MeasureOptions options_;
  Runner runner_;
  std::map<std::string, Reference> references_;
  // Naive kernels built along with a batch of their task's candidates, by workload key, until
  // the reference is computed.
  std::map<std::string, BuildResult> naiveBuilds_;
  std::map<std::string, double> bestCost_; // per workload key: the fastest mean cost so far
  // Faults CLUSTUNE_MEASURE_FAULTS plants by candidate number (tests only, FaultInjection.h).
  std::map<long, InjectedFault> faults_;
  long candidatesMeasured_ = 0;
  MeasureProfile profile_;
};

} // namespace clustune::measure
