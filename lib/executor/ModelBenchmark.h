// Timing a whole model (on the CPU or the GPU) and checking its outputs, for clustune-run and
// the latency scripts:
// warm up, run R times, report the median and p90 latency, and optionally the time of each
// task (summed over its occurrences in one run). Comparison of outputs uses the conformance
// tolerance (|actual − reference| ≤ 1e-4 + 1e-3·|reference|).
#pragma once

#include "executor/GpuModelExecutor.h"
#include "executor/ModelExecutor.h"

#include <string>
#include <vector>

namespace clustune::executor {

struct TaskTime {
  std::string key;
  std::string anchor;
  int occurrences = 0;
  double medianSeconds = 0.0; // per model run, all occurrences together
};

struct LatencyReport {
  std::vector<double> runSeconds; // every timed run
  double medianSeconds = 0.0;
  double p90Seconds = 0.0;
  std::vector<TaskTime> tasks; // slowest first; empty unless asked for
};

LatencyReport measureLatency(const ModelExecutor& executor,
                             const std::vector<te::TensorData>& inputs, int repeat, bool perTask);
// The same on the GPU: each run is the GPU time of every kernel, timed by CUDA events with the
// inputs on the device; per task, each occurrence is timed by its own events.
LatencyReport measureGpuLatency(GpuModelExecutor& executor,
                                const std::vector<te::TensorData>& inputs, int repeat,
                                bool perTask);

struct OutputComparison {
  double maxAbsoluteError = 0.0;
  double maxRelativeError = 0.0; // |a − r| / max(|r|, 1e-6)
  bool withinTolerance = true;
  std::string firstMismatch; // "output 0 element 17: 0.5 vs 0.49"
};

OutputComparison compareOutputs(const std::vector<te::TensorData>& actual,
                                const std::vector<te::TensorData>& reference);

} // namespace clustune::executor
