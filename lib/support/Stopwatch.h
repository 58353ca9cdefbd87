// Wall-clock seconds for stage profiles, progress lines and time budgets: the one steady clock
// that every module times with.
#pragma once

#include <chrono>

namespace clustune {

using SteadyClock = std::chrono::steady_clock;

inline double secondsSince(SteadyClock::time_point start) {
  return std::chrono::duration<double>(SteadyClock::now() - start).count();
}

} // namespace clustune
