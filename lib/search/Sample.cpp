// See Sample.h. Each candidate is validated the way measurement will use it (replay, then
// lowering), so that a sampled schedule never turns into an invalid_schedule record.
#include "search/Sample.h"

#include "schedule/Lower.h"
#include "schedule/State.h"
#include "search/RandomAnnotation.h"
#include "search/Sketch.h"
#include "support/Error.h"
#include "support/Random.h"
#include "te/LowerTask.h"

#include <set>
#include <string>

namespace clustune::search {

std::vector<std::vector<schedule::Step>> sample(const te::Workload& workload, int count,
                                                std::uint64_t seed, const SampleOptions& options) {
  if (count < 0)
    throw Error("search::sample: the sample count must be non-negative, got " +
                std::to_string(count));
  const std::vector<Sketch> sketches = generateSketches(workload);
  const AnnotationOptions annotationOptions{.cores = options.cores,
                                            .vectorLanes = options.vectorLanes};
  const std::int64_t maxAttempts =
      options.maxAttempts > 0 ? options.maxAttempts : 64 + 16 * static_cast<std::int64_t>(count);
  const Rng root(seed);

  std::vector<std::vector<schedule::Step>> samples;
  std::set<std::string> seen;
  for (std::int64_t attempt = 0; attempt < maxAttempts && static_cast<int>(samples.size()) < count;
       ++attempt) {
    Rng rng = root.fork(static_cast<std::uint64_t>(attempt));
    const Sketch& sketch = sketches[rng.uniformInt(static_cast<std::uint64_t>(sketches.size()))];
    try {
      std::vector<schedule::Step> steps = annotateSketch(workload, sketch, annotationOptions, rng);
      if (!seen.insert(schedule::toJson(steps).dump()).second)
        continue;
      // Replaying from scratch checks the steps as a record will be checked.
      schedule::lower(workload, schedule::replay(workload, steps), "sample");
      samples.push_back(std::move(steps));
    } catch (const Error&) {
      // An annotation that does not fit (e.g. a step the State refuses): draw another.
    }
  }
  return samples;
}

std::vector<std::vector<schedule::Step>> sample(const graph::Task& task, int count,
                                                std::uint64_t seed, const SampleOptions& options) {
  return sample(te::lowerTask(task), count, seed, options);
}

} // namespace clustune::search
