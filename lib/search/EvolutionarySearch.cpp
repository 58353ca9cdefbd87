// See EvolutionarySearch.h. Scores are cached by schedule text for the round, so an individual
// copied into the next generation is not featurised again; only new schedules reach the model.
// Replaced generations are freed on the pool, as they were lowered on it: freeing a generation's
// loop nests on the calling thread alone kept the pool idle for a sixth of each round (with
// jemalloc; with glibc's malloc, freeing across threads cost what it saved).
#include "search/EvolutionarySearch.h"

#include "runtime/ThreadPool.h"
#include "support/Stopwatch.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <spdlog/spdlog.h>
#include <unordered_map>

namespace clustune::search {
namespace {

struct Individual {
  Candidate candidate;
  int sketch = -1; // index into SearchTask::sketches, -1 when it completes none
};

struct Scored {
  double score = 0;
  Candidate candidate;
};

class Round {
public:
  Round(const SearchTask& task, const SearchHistory& history, CostModel& model,
        const EvolutionOptions& options, EvolutionReport& report)
      : task_(task), history_(history), model_(model), options_(options), report_(report) {}

  std::vector<Candidate> run(int count, Rng& rng) {
    population_ = options_.populationFor(count);
    report_.population = population_;
    std::vector<Individual> population = initialPopulation(rng);
    const std::vector<std::size_t> randomOrder = shuffledSampled(rng);
    const int keep = 2 * count;
    const int generations =
        model_.informative() ? options_.iterations : std::min(options_.iterations, 3);
    for (int generation = 0; !population.empty(); ++generation) {
      const std::vector<double> scores = score(population);
      for (std::size_t i = 0; i < population.size(); ++i)
        consider(population[i].candidate, scores[i]);
      prune(keep);
      if (generation == generations)
        break;
      std::vector<Individual> next = nextGeneration(population, scores, Rng(rng.next()));
      release(population);
      population = std::move(next);
      ++report_.generations;
    }
    std::vector<Candidate> chosen = pick(count, randomOrder);
    release(population);
    release(sampled_);
    return chosen;
  }

private:
  void release(std::vector<Individual>& individuals) {
    const auto start = SteadyClock::now();
    const auto clear = [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t i = begin; i < end; ++i)
        individuals[static_cast<std::size_t>(i)] = {};
    };
    runtime::ThreadPool::global().parallelFor(static_cast<std::int64_t>(individuals.size()), clear);
    individuals.clear();
    report_.releaseSeconds += secondsSince(start);
  }

  bool measured(const std::string& text) const {
    return history_.measured && history_.measured->contains(text);
  }

  std::vector<Individual> initialPopulation(Rng& rng) {
    const auto start = SteadyClock::now();
    std::vector<Candidate> drawn = sampleCandidates(
        task_.workload, task_.sketches, population_, Rng(rng.next()), options_.sampling,
        [&](const std::string& text) { return measured(text); });
    std::vector<Individual> population;
    for (Candidate& candidate : drawn) {
      const int sketch = findSketch(task_.sketches, candidate.steps);
      population.push_back({std::move(candidate), sketch});
    }
    report_.sampled = static_cast<int>(population.size());
    sampled_ = population;
    const std::size_t seeds =
        std::min(history_.fastest.size(),
                 static_cast<std::size_t>(options_.measuredSeedRatio * population_));
    for (std::size_t i = 0; i < seeds; ++i)
      population.push_back(
          {*history_.fastest[i], findSketch(task_.sketches, history_.fastest[i]->steps)});
    report_.measuredSeeds = static_cast<int>(seeds);
    for (const Candidate& candidate : history_.transferred)
      population.push_back({candidate, findSketch(task_.sketches, candidate.steps)});
    report_.transferSeeds = static_cast<int>(history_.transferred.size());
    report_.sampleSeconds += secondsSince(start);
    return population;
  }

  // The order in which ε-greedy takes random members of the sampled population.
  std::vector<std::size_t> shuffledSampled(Rng& rng) const {
    std::vector<std::size_t> order(sampled_.size());
    for (std::size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    rng.shuffle(order);
    return order;
  }

  std::vector<double> score(const std::vector<Individual>& population) {
    std::vector<const Candidate*> unscored;
    std::unordered_map<std::string, std::size_t> pending;
    for (const Individual& individual : population)
      if (!scores_.contains(individual.candidate.text) &&
          pending.emplace(individual.candidate.text, unscored.size()).second)
        unscored.push_back(&individual.candidate);
    if (!unscored.empty()) {
      const auto start = SteadyClock::now();
      const std::vector<double> fresh = model_.predict(task_.task, unscored);
      report_.scoreSeconds += secondsSince(start);
      for (std::size_t i = 0; i < unscored.size(); ++i)
        scores_.emplace(unscored[i]->text, fresh[i]);
      report_.scored += static_cast<int>(unscored.size());
    }
    std::vector<double> scores;
    scores.reserve(population.size());
    for (const Individual& individual : population)
      scores.push_back(scores_.at(individual.candidate.text));
    return scores;
  }

  void consider(const Candidate& candidate, double score) {
    if (measured(candidate.text) || best_.contains(candidate.text))
      return;
    best_.emplace(candidate.text, Scored{score, candidate});
  }

  void prune(int keep) {
    if (static_cast<int>(best_.size()) <= keep)
      return;
    std::vector<std::pair<double, std::string>> ranked;
    for (const auto& [text, scored] : best_)
      ranked.emplace_back(scored.score, text);
    std::nth_element(ranked.begin(), ranked.begin() + keep, ranked.end(),
                     [](const auto& a, const auto& b) {
                       return a.first != b.first ? a.first > b.first : a.second < b.second;
                     });
    for (std::size_t i = static_cast<std::size_t>(keep); i < ranked.size(); ++i)
      best_.erase(ranked[i].second);
  }

  // Selection proportional to score, shifted so that the worst individual keeps a small chance:
  // learned models score on an arbitrary scale, which may be negative.
  static std::vector<double> cumulativeSelection(const std::vector<double>& scores) {
    const auto [low, high] = std::minmax_element(scores.begin(), scores.end());
    const double floor = std::max(*high - *low, 1e-12) * 0.01;
    std::vector<double> cumulative(scores.size());
    double sum = 0;
    for (std::size_t i = 0; i < scores.size(); ++i)
      cumulative[i] = sum += scores[i] - *low + floor;
    return cumulative;
  }

  std::vector<Individual> nextGeneration(const std::vector<Individual>& population,
                                         const std::vector<double>& scores, const Rng& root) {
    const auto start = SteadyClock::now();
    const std::vector<double> cumulative = cumulativeSelection(scores);
    const std::size_t size = static_cast<std::size_t>(population_);
    std::vector<Individual> next(size);
    std::atomic<int> tried{0}, valid{0};
    runtime::ThreadPool::global().parallelFor(
        static_cast<std::int64_t>(size), [&](std::int64_t begin, std::int64_t end) {
          for (std::int64_t slot = begin; slot < end; ++slot) {
            Rng rng = root.fork(static_cast<std::uint64_t>(slot));
            const double draw = rng.uniform() * cumulative.back();
            const std::size_t parent = std::min<std::size_t>(
                std::upper_bound(cumulative.begin(), cumulative.end(), draw) - cumulative.begin(),
                population.size() - 1);
            const Individual& chosen = population[parent];
            Individual& child = next[static_cast<std::size_t>(slot)];
            // Most children are mutants: the parent is copied only when it is the child.
            if (rng.uniform() < options_.mutationProbability) {
              ++tried;
              const Sketch* sketch = chosen.sketch >= 0
                                         ? &task_.sketches[static_cast<std::size_t>(chosen.sketch)]
                                         : nullptr;
              std::optional<Steps> steps =
                  mutate(task_.workload, sketch, chosen.candidate.steps, options_.weights, rng);
              std::optional<Candidate> mutated =
                  steps ? makeCandidate(task_.workload, std::move(*steps)) : std::nullopt;
              if (mutated) {
                child = {std::move(*mutated), chosen.sketch};
                ++valid;
                continue;
              }
            }
            child = chosen;
          }
        });
    report_.mutations += tried;
    report_.validMutations += valid;
    report_.mutateSeconds += secondsSince(start);
    return next;
  }

  // The transferred share, then Ansor's PickStatesWithEpsGreedy: the best kept candidates
  // first, then the random share.
  std::vector<Candidate> pick(int count, const std::vector<std::size_t>& randomOrder) {
    std::vector<std::pair<double, const Candidate*>> ranked;
    for (const auto& [text, scored] : best_)
      ranked.emplace_back(scored.score, &scored.candidate);
    std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second->text < b.second->text;
    });
    std::vector<Candidate> chosen = firstTransferred(history_, count, options_.transferShare);
    report_.transferred = static_cast<int>(chosen.size());
    std::unordered_set<std::string> taken;
    for (const Candidate& candidate : chosen)
      taken.insert(candidate.text);
    const int randomShare = static_cast<int>(options_.epsGreedy * count);
    std::size_t nextBest = 0, nextRandom = 0;
    auto takeBest = [&] {
      for (; nextBest < ranked.size(); ++nextBest)
        if (taken.insert(ranked[nextBest].second->text).second) {
          chosen.push_back(*ranked[nextBest++].second);
          return true;
        }
      return false;
    };
    auto takeRandom = [&] {
      for (; nextRandom < randomOrder.size(); ++nextRandom) {
        const Candidate& candidate = sampled_[randomOrder[nextRandom]].candidate;
        if (!measured(candidate.text) && taken.insert(candidate.text).second) {
          chosen.push_back(candidate);
          ++nextRandom;
          ++report_.randomlyPicked;
          return true;
        }
      }
      return false;
    };
    while (static_cast<int>(chosen.size()) < count) {
      const bool wantBest = static_cast<int>(chosen.size()) < count - randomShare;
      if (!(wantBest ? takeBest() || takeRandom() : takeRandom() || takeBest()))
        break;
    }
    return chosen;
  }

  const SearchTask& task_;
  const SearchHistory& history_;
  CostModel& model_;
  const EvolutionOptions& options_;
  EvolutionReport& report_;
  std::vector<Individual> sampled_;
  int population_ = 0; // of this round: EvolutionOptions::populationFor its count
  std::unordered_map<std::string, double> scores_;
  std::unordered_map<std::string, Scored> best_;
};

} // namespace

int EvolutionOptions::populationFor(int count) const {
  if (populationPerCandidate <= 0)
    return population;
  const std::int64_t scaled = static_cast<std::int64_t>(populationPerCandidate) * count;
  return static_cast<int>(
      std::clamp<std::int64_t>(scaled, std::min(minPopulation, population), population));
}

std::vector<Candidate> EvolutionarySearch::propose(const SearchTask& task,
                                                   const SearchHistory& history, CostModel& model,
                                                   int count, Rng& rng) {
  const auto start = SteadyClock::now();
  report_ = {};
  std::vector<Candidate> proposed =
      count > 0 ? Round(task, history, model, options_, report_).run(count, rng)
                : std::vector<Candidate>{};
  report_.proposed = static_cast<int>(proposed.size());
  report_.seconds = secondsSince(start);
  spdlog::debug(
      "evolution of {}: population {}, {} sampled + {} measured + {} transferred "
      "seeds, {} generations, {}/{} valid mutations, {} scored, {} proposed ({} random, {} "
      "transferred) in {:.2f} s: sampling {:.2f} s, scoring {:.2f} s, mutating {:.2f} s, "
      "freeing {:.2f} s",
      task.task.key, report_.population, report_.sampled, report_.measuredSeeds,
      report_.transferSeeds, report_.generations, report_.validMutations, report_.mutations,
      report_.scored, report_.proposed, report_.randomlyPicked, report_.transferred,
      report_.seconds, report_.sampleSeconds, report_.scoreSeconds, report_.mutateSeconds,
      report_.releaseSeconds);
  return proposed;
}

} // namespace clustune::search
