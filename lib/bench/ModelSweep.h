// One model at one batch size under every compiler of a sweep: the same seeded weights and
// inputs for all, clustune's compilers in this process, the peers through PeerRunner, and each
// compiler's outputs compared with the first one's.
#pragma once

#include "bench/BenchRow.h"
#include "bench/PeerRunner.h"
#include "bench/SweepSpec.h"
#include "executor/TuningLog.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace clustune::bench {

struct SweepSettings {
  int repeat = 10; // timed runs after one warm-up
  int threads = 1;
  std::uint64_t seed = 0;
  bool isolate = true; // first run of every kernel in the worker process (as clustune-run)
  PeerSettings peer = {};
};

class ModelSweep {
public:
  // Reads the tuning log of a tuned compiler (Error naming it when it is missing or bad).
  ModelSweep(std::vector<CompilerSpec> compilers, SweepSettings settings);

  // One row per compiler, in the sweep's order. A model that does not import at this batch
  // gives a failed row per compiler rather than an error.
  std::vector<BenchRow> run(const std::string& modelPath, std::int64_t batch);

  const std::string& cpu() const { return cpu_; }

private:
  std::vector<CompilerSpec> compilers_;
  SweepSettings settings_;
  // By compiler name ("tuned", "tuned@NCHW16c"): the best schedule of each task in its log.
  std::map<std::string, std::map<std::string, executor::BestRecord>> tunedLogs_;
  std::string cpu_;
};

// The model's name in rows: its file name without the folder and ".onnx".
std::string modelName(const std::string& modelPath);

// "AMD EPYC (znver4)": /proc/cpuinfo's model name and LLVM's name of the host CPU.
std::string describeHostCpu();

} // namespace clustune::bench
