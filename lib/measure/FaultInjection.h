// Faults planted in generated kernels, for the tests of isolation only: a kernel that crashes
// (a store 2^40 elements past its output), one that hangs (a loop of 2^62 dependent float
// updates), one that computes a wrong result (its first output element plus one). Tests select
// them through environment variables, never set outside tests:
//   - CLUSTUNE_MEASURE_FAULTS="crash@2,hang@4,wrong@6": the 2nd, 4th and 6th candidates a
//     Measurer measures (counted from 1 over the process's lifetime) get those faults;
//   - CLUSTUNE_FAULT_INJECTION_TASK=<key>: clustune-run's kernel of that task crashes.
#pragma once

#include "te/Stmt.h"

#include <map>

namespace clustune::measure {

enum class InjectedFault { None, Crash, Hang, WrongResult };

inline constexpr const char* kMeasureFaultsVariable = "CLUSTUNE_MEASURE_FAULTS";

te::LoweredFunction injectFault(te::LoweredFunction function, InjectedFault fault);

// The faults CLUSTUNE_MEASURE_FAULTS asks for, by candidate number (from 1); empty when it is
// unset. Throws clustune::Error for a malformed value.
std::map<long, InjectedFault> measureFaultsFromEnvironment();

} // namespace clustune::measure
