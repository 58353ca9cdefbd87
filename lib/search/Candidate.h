// A candidate of the search: a schedule that replays on its workload and lowers, kept with the
// loop nest it lowers to (what cost models featurise) and its canonical text (what "already
// measured" and "already in the population" compare). Evolution, sampling and the tuner pass
// candidates around, so every schedule is lowered once.
#pragma once

#include "schedule/Step.h"
#include "te/Stmt.h"
#include "te/Tensor.h"

#include <optional>
#include <string>
#include <vector>

namespace clustune::search {

struct Candidate {
  std::vector<schedule::Step> steps;
  te::LoweredFunction function;
  std::string text; // schedule::scheduleText(steps)
};

// The candidate of `steps`, or nullopt when they do not replay or lower on `workload`.
std::optional<Candidate> makeCandidate(const te::Workload& workload,
                                       std::vector<schedule::Step> steps);

} // namespace clustune::search
