// See Sample.h. Each candidate is validated the way measurement will use it (replay, then
// lowering), so that a sampled schedule never turns into an invalid_schedule record.
#include "search/Sample.h"

#include "runtime/ThreadPool.h"
#include "search/RandomAnnotation.h"
#include "support/Error.h"
#include "te/LowerTask.h"

#include <optional>
#include <set>
#include <string>

namespace clustune::search {
namespace {

// One draw: a sketch, then its random annotation; nullopt when the annotation does not fit
// (a step the State refuses).
std::optional<std::vector<schedule::Step>> draw(const te::Workload& workload,
                                                const std::vector<Sketch>& sketches,
                                                const SampleOptions& options, Rng& rng) {
  const AnnotationOptions annotationOptions{.cores = options.cores,
                                            .vectorLanes = options.vectorLanes};
  const Sketch& sketch = sketches[rng.uniformInt(static_cast<std::uint64_t>(sketches.size()))];
  try {
    return annotateSketch(workload, sketch, annotationOptions, rng);
  } catch (const Error&) {
    return std::nullopt;
  }
}

} // namespace

std::vector<std::vector<schedule::Step>> sample(const te::Workload& workload, int count,
                                                std::uint64_t seed, const SampleOptions& options) {
  if (count < 0)
    throw Error("search::sample: the sample count must be non-negative, got " +
                std::to_string(count));
  if (options.gpu)
    return sampleGpu(workload, count, seed, *options.gpu);
  const std::vector<Sketch> sketches = generateSketches(workload);
  const std::int64_t maxAttempts =
      options.maxAttempts > 0 ? options.maxAttempts : 64 + 16 * static_cast<std::int64_t>(count);
  const Rng root(seed);

  std::vector<std::vector<schedule::Step>> samples;
  std::set<std::string> seen;
  for (std::int64_t attempt = 0; attempt < maxAttempts && static_cast<int>(samples.size()) < count;
       ++attempt) {
    Rng rng = root.fork(static_cast<std::uint64_t>(attempt));
    std::optional<std::vector<schedule::Step>> steps = draw(workload, sketches, options, rng);
    if (!steps || !seen.insert(schedule::scheduleText(*steps)).second)
      continue;
    if (std::optional<Candidate> candidate = makeCandidate(workload, std::move(*steps)))
      samples.push_back(std::move(candidate->steps));
  }
  return samples;
}

std::vector<std::vector<schedule::Step>> sample(const graph::Task& task, int count,
                                                std::uint64_t seed, const SampleOptions& options) {
  return sample(te::lowerTask(task), count, seed, options);
}

std::vector<Candidate> sampleCandidates(const te::Workload& workload,
                                        const std::vector<Sketch>& sketches, int attempts,
                                        const Rng& root, const SampleOptions& options,
                                        const std::function<bool(const std::string&)>& excluded) {
  std::vector<std::optional<Candidate>> drawn(static_cast<std::size_t>(std::max(attempts, 0)));
  runtime::ThreadPool::global().parallelFor(
      static_cast<std::int64_t>(drawn.size()), [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t attempt = begin; attempt < end; ++attempt) {
          Rng rng = root.fork(static_cast<std::uint64_t>(attempt));
          if (std::optional<std::vector<schedule::Step>> steps =
                  draw(workload, sketches, options, rng))
            drawn[static_cast<std::size_t>(attempt)] = makeCandidate(workload, std::move(*steps));
        }
      });
  std::vector<Candidate> candidates;
  std::set<std::string> seen;
  for (std::optional<Candidate>& candidate : drawn)
    if (candidate && !(excluded && excluded(candidate->text)) &&
        seen.insert(candidate->text).second)
      candidates.push_back(std::move(*candidate));
  return candidates;
}

} // namespace clustune::search
