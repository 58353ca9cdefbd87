// The Runner of measurement (DESIGN §5): executes built candidates in a persistent worker
// process (tools/clustune-worker, see Worker.h), on the CPU or on the worker's GPU, so that a
// kernel that faults or hangs costs one record, never the caller. The worker is started on
// first use and kept for the next candidates; a candidate that exceeds the time limit gets the
// worker killed (SIGKILL) and is recorded as `timeout`; a worker that dies (a signal, an exit)
// makes the candidate a `crash` named after the signal, and a GPU fault that loses the
// worker's CUDA context makes it a `runtime` error. Each way the next candidate starts a fresh
// worker.
//
// The worker generates the seeded inputs itself (SeededInputs.h) and can send the outputs back
// for the correctness check (Correctness.h). Talking to it never raises SIGPIPE in the caller,
// and the caller's signal dispositions are left alone. A Runner measures one candidate at a
// time (timings taken side by side would disturb each other); it is not thread-safe.
#pragma once

#include "measure/Builder.h"
#include "measure/SeededInputs.h"
#include "measure/Timing.h"
#include "te/TensorData.h"

#include <cstdint>
#include <string>
#include <sys/types.h>
#include <vector>

namespace clustune::measure {

struct RunnerOptions {
  // The worker executable; empty means clustune-worker in the directory of this process's
  // executable (/proc/self/exe), where the build and the install put every tool.
  std::string workerPath = {};
  double timeoutSeconds = 10; // per candidate: loading, warm-up and every timed run
  TimingOptions timing = {};
  std::uint64_t seed = 0; // of the inputs; the reference must use the same one
  int threads = 0;        // the kernels' thread-pool size; 0 = the worker's hardware concurrency
};

struct RunOutcome {
  std::vector<double> costs = {}; // seconds per run, one per repeat
  std::string error = {};         // "", errors::kTimeout, errors::kCrash or errors::kRuntime
  std::string errorDetail = {};
  std::vector<te::TensorData> outputs = {}; // when asked for and ok, in output-argument order

  bool ok() const { return error.empty(); }
};

class Runner {
public:
  explicit Runner(RunnerOptions options = {});
  ~Runner(); // stops the worker
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  // Runs a built candidate; a failed build must not be passed.
  RunOutcome run(const BuildResult& built, bool returnOutputs);
  // Runs any object code with this kernel signature: the lower-level entry that tests and
  // hand-written kernels use. Throws clustune::Error only when no worker can be started
  // (missing executable, wrong protocol version).
  RunOutcome runObject(const std::string& objectBytes, const std::string& functionName,
                       const std::vector<ArgumentSpec>& arguments, bool returnOutputs);
  // As run(), with another timing and time limit for this call only: a reference run is timed
  // once and may take far longer than a candidate.
  RunOutcome run(const BuildResult& built, bool returnOutputs, const TimingOptions& timing,
                 double timeoutSeconds);

  const RunnerOptions& options() const { return options_; }
  // How many worker processes this Runner has started, and the current one (-1 when none);
  // for tests and diagnostics.
  int workerStarts() const { return workerStarts_; }
  pid_t workerPid() const { return pid_; }

  // clustune-worker beside the running executable.
  static std::string defaultWorkerPath();

private:
  RunOutcome runWith(const std::string& objectBytes, const codegen::CudaModule& gpu,
                     const std::string& functionName, const std::vector<ArgumentSpec>& arguments,
                     bool returnOutputs, const TimingOptions& timing, double timeoutSeconds);
  void startWorker();
  // Closes the connection and reaps the worker: politely (EOF) first, SIGKILL after a grace
  // period, or SIGKILL at once. Returns the wait status.
  int stopWorker(bool killNow);
  // The outcome of a candidate whose worker died under it.
  RunOutcome workerDied();

  RunnerOptions options_;
  std::string workerPath_;
  pid_t pid_ = -1;
  int fd_ = -1;
  int workerStarts_ = 0;
};

} // namespace clustune::measure
