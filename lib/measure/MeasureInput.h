// What measurement takes and gives (DESIGN §5): a task with a schedule in, the timed costs or
// the reason there are none out. These are the fields a records.jsonl entry is made of; the
// error kinds are the fixed vocabulary that records, the search and the cost-model training
// filter on, so they are spelled once here.
#pragma once

#include "graph/Task.h"
#include "measure/FaultInjection.h"
#include "schedule/Step.h"

#include <string>
#include <vector>

namespace clustune::measure {

// MeasureResult::error values; "" means the candidate was measured and its outputs were right.
namespace errors {
inline constexpr const char* kCompile = "compile";                  // lowering or LLVM failed
inline constexpr const char* kCompileTimeout = "compile_timeout";   // its build passed the limit
inline constexpr const char* kTimeout = "timeout";                  // killed after the time limit
inline constexpr const char* kCrash = "crash";                      // the worker died (a signal)
inline constexpr const char* kWrongResult = "wrong_result";         // outputs differ from reference
inline constexpr const char* kInvalidSchedule = "invalid_schedule"; // a step does not apply
inline constexpr const char* kRuntime = "runtime"; // the kernel could not be loaded or run
// Every kind above: records.jsonl readers accept exactly these, so a new kind goes here too.
inline constexpr const char* kAll[] = {kCompile,     kCompileTimeout,  kTimeout, kCrash,
                                       kWrongResult, kInvalidSchedule, kRuntime};
} // namespace errors

struct MeasureInput {
  graph::Task task = {};
  std::vector<schedule::Step> steps = {};
  InjectedFault fault = InjectedFault::None; // tests of isolation only (FaultInjection.h)
};

struct MeasureResult {
  std::vector<double> costs = {}; // seconds per run: the mean of each repeat
  std::string error = {};         // "" or one of errors::*
  std::string errorDetail = {};   // a human-readable explanation when error is set
  double compileSeconds = 0;      // lowering, replay and code generation of this candidate

  bool ok() const { return error.empty(); }
  // Mean over the repeats: the cost a search ranks candidates by; 0 when there are none.
  double meanCost() const {
    double sum = 0;
    for (double cost : costs)
      sum += cost;
    return costs.empty() ? 0.0 : sum / static_cast<double>(costs.size());
  }
};

} // namespace clustune::measure
