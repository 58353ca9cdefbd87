// See Candidate.h.
#include "search/Candidate.h"

#include "schedule/Lower.h"
#include "schedule/State.h"
#include "support/Error.h"

namespace clustune::search {

std::optional<Candidate> makeCandidate(const te::Workload& workload,
                                       std::vector<schedule::Step> steps) {
  try {
    // Replaying from scratch checks the steps as measurement will check them.
    te::LoweredFunction function =
        schedule::lower(workload, schedule::replay(workload, steps), "candidate");
    std::string text = schedule::scheduleText(steps);
    return Candidate{.steps = std::move(steps), .function = std::move(function), .text = std::move(text)};
  } catch (const Error&) {
    return std::nullopt;
  }
}

} // namespace clustune::search
