// See Tuner.h.
#include "tune/Tuner.h"

#include "search/ScheduleTransfer.h"
#include "support/Error.h"
#include "support/Stopwatch.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <spdlog/spdlog.h>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace clustune::tune {
namespace {

constexpr double kUnknown = std::numeric_limits<double>::infinity();

} // namespace

struct Tuner::TaskState {
  search::SearchTask search;
  double weight = 1;
  std::vector<schedule::Step> defaultSteps;
  std::string defaultText;
  double defaultSeconds = kUnknown;
  double best = kUnknown;
  // Valid measured candidates, owned here so that Measurements and seeds can point at them.
  std::vector<std::unique_ptr<search::Candidate>> valid;
  std::vector<std::pair<double, const search::Candidate*>> fastest; // ascending, capped
  // Tasks (or donors) whose schedules transfer to this one as they are, and whose schedules are
  // adapted to this one's shapes.
  std::vector<const TaskState*> siblings, relatives;
  std::unordered_set<std::string> transferredTexts; // this run's measured transfers

  void addValid(std::unique_ptr<search::Candidate> candidate, double seconds, std::size_t cap) {
    best = std::min(best, seconds);
    const auto position =
        std::upper_bound(fastest.begin(), fastest.end(), seconds,
                         [](double value, const auto& entry) { return value < entry.first; });
    if (static_cast<std::size_t>(position - fastest.begin()) < cap) {
      fastest.insert(position, {seconds, candidate.get()});
      if (fastest.size() > cap)
        fastest.pop_back();
    }
    valid.push_back(std::move(candidate));
  }
};

Tuner::Tuner(const std::vector<graph::Task>& tasks, measure::Measurer& measurer,
             search::CostModel& model, search::SearchStrategy& strategy,
             search::TaskScheduler& scheduler, Database& database, TuneOptions options,
             const std::vector<DonorTask>& donors)
    : measurer_(measurer), model_(model), strategy_(strategy), scheduler_(scheduler),
      database_(database), options_(std::move(options)) {
  assert(scheduler.taskCount() == tasks.size());
  for (const graph::Task& task : tasks) {
    auto state = std::make_unique<TaskState>();
    try {
      state->search = search::makeSearchTask(task);
    } catch (const Error& error) {
      throw error.withContext({.task = task.key});
    }
    state->weight = static_cast<double>(std::max<std::int64_t>(task.totalWeight(), 1));
    state->defaultSteps = defaultSchedule(state->search.workload);
    state->defaultText = schedule::scheduleText(state->defaultSteps);
    tasks_.push_back(std::move(state));
  }
  summary_.tasks = static_cast<int>(tasks_.size());
  for (const DonorTask& donor : donors)
    if (std::unique_ptr<TaskState> state = makeDonor(donor))
      donors_.push_back(std::move(state));
  summary_.donorTasks = static_cast<int>(donors_.size());
  linkRelatives();
}

std::vector<schedule::Step> Tuner::defaultSchedule(const te::Workload& workload) const {
  return options_.gpuDefaults ? schedule::defaultGpuSchedule(workload, *options_.gpuDefaults)
                              : schedule::defaultSchedule(workload, options_.defaults);
}

// A donor holds the fastest of its logged schedules that lower, as a tuned task holds its own.
std::unique_ptr<Tuner::TaskState> Tuner::makeDonor(const DonorTask& donor) const {
  auto state = std::make_unique<TaskState>();
  try {
    state->search = search::makeSearchTask(donor.task);
  } catch (const Error& error) {
    throw error.withContext({.task = donor.task.key});
  }
  // Its default is skipped as an offer, as a tuned task's is (transferredCandidates).
  state->defaultText = schedule::scheduleText(defaultSchedule(state->search.workload));
  std::vector<const measure::Record*> valid;
  for (const measure::Record& record : donor.records)
    if (record.ok())
      valid.push_back(&record);
  std::stable_sort(valid.begin(), valid.end(),
                   [](const auto* a, const auto* b) { return a->meanCost() < b->meanCost(); });
  // Offers stop after 4 tries per schedule wanted (transferredCandidates), so more are not read.
  const std::size_t wanted =
      static_cast<std::size_t>(4 * std::max(options_.transferSeeds, options_.relativeSeeds));
  std::unordered_set<std::string> texts;
  for (const measure::Record* record : valid) {
    if (state->fastest.size() == wanted)
      break;
    std::optional<search::Candidate> candidate =
        search::makeCandidate(state->search.workload, record->schedule);
    if (!candidate || !texts.insert(candidate->text).second)
      continue;
    state->addValid(std::make_unique<search::Candidate>(std::move(*candidate)), record->meanCost(),
                    wanted);
  }
  if (state->fastest.empty()) {
    spdlog::warn("donor task {} ({}): no valid logged schedule lowers; it gives nothing",
                 donor.task.key, donor.task.anchor);
    return nullptr;
  }
  return state;
}

// Groups the tuned tasks and the donors by what their schedules share. Donors give, they never
// receive: they are not tuned.
void Tuner::linkRelatives() {
  // Each task's keys, computed once: tuned tasks first, then donors.
  std::vector<std::tuple<TaskState*, std::string, std::string>> keyed;
  std::unordered_map<std::string, std::vector<const TaskState*>> byTransferKey, byRelativeKey;
  for (const auto* group : {&tasks_, &donors_})
    for (const auto& task : *group) {
      const te::Workload& workload = task->search.workload;
      auto& [state, transfer, relative] = keyed.emplace_back(
          task.get(), search::transferKey(workload), search::relativeKey(workload));
      if (!transfer.empty())
        byTransferKey[transfer].push_back(state);
      if (!relative.empty())
        byRelativeKey[relative].push_back(state);
    }
  keyed.resize(tasks_.size());
  for (auto& [task, transfer, relative] : keyed) {
    if (!transfer.empty())
      for (const TaskState* sibling : byTransferKey[transfer])
        if (sibling != task)
          task->siblings.push_back(sibling);
    if (!relative.empty())
      for (const TaskState* other : byRelativeKey[relative])
        if (other != task &&
            std::find(task->siblings.begin(), task->siblings.end(), other) == task->siblings.end())
          task->relatives.push_back(other);
  }
}

Tuner::~Tuner() = default;

double Tuner::elapsedSeconds() const {
  return startElapsed_ + secondsSince(start_);
}

int Tuner::trialsLeft() const {
  return options_.trials > 0 ? options_.trials - database_.tuningTrials()
                             : std::numeric_limits<int>::max();
}

// Ansor sizes its rounds so that the warm-up, a round for every task, fits in the budget
// (trials / tasks). At 64 trials a task, that warm-up spends the whole budget, and the gradient
// scheduler never gives a round to the tasks that dominate the latency. With a budget, warm-up
// rounds therefore take at most trials / (2 · tasks), leaving the gradient half of it.
int Tuner::roundSize(int t) const {
  int size = options_.perRound;
  if (options_.trials > 0 && scheduler_.rounds(t) == 0)
    size = std::min(size, std::max(1, options_.trials / (2 * static_cast<int>(tasks_.size()))));
  return std::min(size, trialsLeft());
}

double Tuner::weightedSeconds(bool defaults) const {
  double sum = 0;
  for (const auto& task : tasks_)
    sum += task->weight * (defaults ? task->defaultSeconds : task->best);
  return sum;
}

TuneSummary Tuner::run() {
  start_ = SteadyClock::now();
  startElapsed_ = database_.elapsedSeconds();
  resume();
  measureDefaults();
  while (runRound()) {
  }
  summary_.seconds = secondsSince(start_);
  summary_.totalSeconds = elapsedSeconds();
  summary_.trials = database_.tuningTrials();
  const double defaults = weightedSeconds(true), estimated = weightedSeconds(false);
  summary_.defaultSeconds = std::isfinite(defaults) ? defaults : 0;
  summary_.estimatedSeconds = std::isfinite(estimated) ? estimated : 0;
  for (std::size_t t = 0; t < tasks_.size(); ++t) {
    const TaskState& task = *tasks_[t];
    summary_.exhaustedTasks += scheduler_.exhausted(static_cast<int>(t)) ? 1 : 0;
    if (!task.fastest.empty() && task.transferredTexts.contains(task.fastest.front().second->text))
      ++summary_.transferredBestTasks;
  }
  return summary_;
}

void Tuner::resume() {
  std::vector<search::Measurement> measurements;
  // The best cost per task before each recorded round, to replay the scheduler's history.
  std::map<int, std::pair<int, double>> rounds; // round -> (task, best of the round)
  std::vector<double> bestBeforeRounds(tasks_.size(), kUnknown);
  for (std::size_t t = 0; t < tasks_.size(); ++t) {
    TaskState& task = *tasks_[t];
    for (const measure::Record& record : database_.records(task.search.task.key)) {
      const bool isDefault = schedule::scheduleText(record.schedule) == task.defaultText;
      if (isDefault)
        task.defaultSeconds = record.ok() ? record.meanCost() : kUnknown;
      if (record.tuneRound >= 1) {
        auto& round =
            rounds.try_emplace(record.tuneRound, static_cast<int>(t), kUnknown).first->second;
        if (record.ok())
          round.second = std::min(round.second, record.meanCost());
      } else if (record.ok()) {
        bestBeforeRounds[t] = std::min(bestBeforeRounds[t], record.meanCost());
      }
      if (!record.ok())
        continue;
      std::optional<search::Candidate> candidate =
          search::makeCandidate(task.search.workload, record.schedule);
      if (!candidate) {
        spdlog::warn("task {}: a logged schedule no longer lowers; it is kept but not learnt from",
                     task.search.task.key);
        continue;
      }
      auto owned = std::make_unique<search::Candidate>(std::move(*candidate));
      measurements.push_back({&task.search.task, owned.get(), record.meanCost()});
      task.addValid(std::move(owned), record.meanCost(),
                    static_cast<std::size_t>(options_.fastestSeeds));
    }
  }
  for (std::size_t t = 0; t < tasks_.size(); ++t)
    scheduler_.setBest(static_cast<int>(t), bestBeforeRounds[t]);
  for (const auto& [round, entry] : rounds) {
    const auto [task, roundBest] = entry;
    bestBeforeRounds[static_cast<std::size_t>(task)] =
        std::min(bestBeforeRounds[static_cast<std::size_t>(task)], roundBest);
    scheduler_.recordRound(task, bestBeforeRounds[static_cast<std::size_t>(task)]);
  }
  if (database_.tuningTrials() > 0)
    spdlog::info("{}: resuming after {} tuning trials, {} rounds and {:.0f} s", database_.path(),
                 database_.tuningTrials(), rounds.size(), database_.elapsedSeconds());
  RoundTimes times;
  learn(measurements, times);
  summary_.updateSeconds += times.update;
}

void Tuner::measureDefaults() {
  std::vector<std::pair<int, search::Candidate>> candidates;
  for (std::size_t t = 0; t < tasks_.size(); ++t) {
    const TaskState& task = *tasks_[t];
    if (database_.measured(task.search.task.key, task.defaultText))
      continue;
    std::optional<search::Candidate> candidate =
        search::makeCandidate(task.search.workload, task.defaultSteps);
    if (!candidate)
      throw Error("the default schedule does not lower", {.task = task.search.task.key});
    candidates.emplace_back(static_cast<int>(t), std::move(*candidate));
  }
  if (candidates.empty())
    return;
  RoundTimes times;
  const auto start = SteadyClock::now();
  const int measured = static_cast<int>(candidates.size());
  const std::vector<search::Measurement> valid = measure(std::move(candidates), 0);
  times.measure = secondsSince(start);
  for (std::size_t t = 0; t < tasks_.size(); ++t)
    scheduler_.setBest(static_cast<int>(t), tasks_[t]->best);
  learn(valid, times);
  report(0, -1, measured, static_cast<int>(valid.size()), times);
}

bool Tuner::runRound() {
  if (trialsLeft() <= 0) {
    summary_.stoppedBy = "trials";
    return false;
  }
  if (options_.timeBudgetSeconds > 0 && elapsedSeconds() >= options_.timeBudgetSeconds) {
    summary_.stoppedBy = "time_budget";
    return false;
  }
  const int round = std::max(database_.lastRound(), 0) + 1;
  Rng rng = Rng(options_.seed).fork(static_cast<std::uint64_t>(round));
  const int t = scheduler_.next(rng);
  if (t < 0) {
    summary_.stoppedBy = "exhausted";
    return false;
  }
  TaskState& task = *tasks_[static_cast<std::size_t>(t)];
  std::vector<const search::Candidate*> fastest;
  for (const auto& [seconds, candidate] : task.fastest)
    fastest.push_back(candidate);
  RoundTimes times;
  auto start = SteadyClock::now();
  const std::vector<search::Candidate> transferred = transferredCandidates(t);
  const search::SearchHistory history{.measured = &database_.measuredTexts(task.search.task.key),
                                      .fastest = fastest,
                                      .transferred = transferred};
  std::vector<search::Candidate> proposed =
      strategy_.propose(task.search, history, model_, roundSize(t), rng);
  times.search = secondsSince(start);
  for (const search::Candidate& candidate : proposed)
    if (std::any_of(transferred.begin(), transferred.end(),
                    [&](const search::Candidate& offer) { return offer.text == candidate.text; })) {
      task.transferredTexts.insert(candidate.text);
      ++summary_.transferredTrials;
    }
  summary_.searchSeconds += times.search;
  if (proposed.empty()) {
    spdlog::info("task {} ({}): the search space holds no more candidates", task.search.task.key,
                 task.search.task.anchor);
    scheduler_.markExhausted(t);
    return true;
  }
  std::vector<std::pair<int, search::Candidate>> candidates;
  for (search::Candidate& candidate : proposed)
    candidates.emplace_back(t, std::move(candidate));
  const int measured = static_cast<int>(candidates.size());
  start = SteadyClock::now();
  const std::vector<search::Measurement> valid = measure(std::move(candidates), round);
  times.measure = secondsSince(start);
  scheduler_.recordRound(t, task.best);
  learn(valid, times);
  report(round, t, measured, static_cast<int>(valid.size()), times);
  return true;
}

std::vector<search::Candidate> Tuner::transferredCandidates(int t) const {
  const TaskState& task = *tasks_[static_cast<std::size_t>(t)];
  if (options_.transferSeeds <= 0 || (task.siblings.empty() && task.relatives.empty()))
    return {};
  const std::unordered_set<std::string>& measured = database_.measuredTexts(task.search.task.key);
  // Offers are ranked by their donor's seconds per FLOP, which compares relatives of other sizes.
  std::vector<std::pair<double, search::Candidate>> offers;
  std::unordered_set<std::string> offered;
  auto offerFrom = [&](const TaskState& donorTask, bool sibling, int wanted) {
    const double flops =
        static_cast<double>(std::max<std::int64_t>(donorTask.search.task.flops, 1));
    // Lowering is the cost of an offer, so a donor whose schedules do not fit is given up on.
    int taken = 0, tried = 0;
    for (const auto& [seconds, donor] : donorTask.fastest) {
      if (taken == wanted || tried++ == 4 * wanted)
        break;
      // Rewritten, a donor's default is close to this task's own, which round 0 measured.
      if (donor->text == donorTask.defaultText)
        continue;
      const te::Workload& from = donorTask.search.workload;
      std::optional<std::vector<schedule::Step>> steps =
          sibling ? search::transferSchedule(from, donor->steps, task.search.workload)
                  : search::adaptSchedule(from, donor->steps, task.search.workload);
      if (!steps)
        continue;
      std::optional<search::Candidate> candidate =
          search::makeCandidate(task.search.workload, std::move(*steps));
      if (!candidate || measured.contains(candidate->text) ||
          !offered.insert(candidate->text).second)
        continue;
      offers.emplace_back(seconds / flops, std::move(*candidate));
      ++taken;
    }
  };
  for (const TaskState* sibling : task.siblings)
    offerFrom(*sibling, true, options_.transferSeeds);
  for (const TaskState* relative : task.relatives)
    offerFrom(*relative, false, options_.relativeSeeds);
  std::stable_sort(offers.begin(), offers.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<search::Candidate> result;
  for (auto& [secondsPerFlop, candidate] : offers)
    if (static_cast<int>(result.size()) < options_.transferSeeds)
      result.push_back(std::move(candidate));
  if (!result.empty())
    spdlog::debug("task {}: {} schedules transferred from {} sibling and {} relative task(s)",
                  task.search.task.key, result.size(), task.siblings.size(), task.relatives.size());
  return result;
}

std::vector<search::Measurement>
Tuner::measure(std::vector<std::pair<int, search::Candidate>> candidates, int round) {
  std::vector<measure::MeasureInput> inputs;
  for (const auto& [t, candidate] : candidates)
    inputs.push_back(
        {.task = tasks_[static_cast<std::size_t>(t)]->search.task, .steps = candidate.steps});
  const std::vector<measure::MeasureResult> results = measurer_.measure(inputs);
  std::vector<search::Measurement> valid;
  for (std::size_t i = 0; i < results.size(); ++i) {
    TaskState& task = *tasks_[static_cast<std::size_t>(candidates[i].first)];
    measure::Record record =
        measure::makeRecord(task.search.task.key, options_.target, inputs[i].steps, results[i]);
    record.tuneRound = round;
    record.tuneSeconds = elapsedSeconds();
    database_.append(record);
    ++summary_.newTrials;
    if (!record.ok()) {
      ++summary_.errors[record.error];
      spdlog::debug("task {}: {}: {}", task.search.task.key, record.error, record.errorDetail);
      continue;
    }
    ++summary_.valid;
    const double seconds = record.meanCost();
    if (candidates[i].second.text == task.defaultText)
      task.defaultSeconds = seconds;
    auto owned = std::make_unique<search::Candidate>(std::move(candidates[i].second));
    valid.push_back({&task.search.task, owned.get(), seconds});
    task.addValid(std::move(owned), seconds, static_cast<std::size_t>(options_.fastestSeeds));
  }
  return valid;
}

void Tuner::learn(const std::vector<search::Measurement>& measurements, RoundTimes& times) {
  if (measurements.empty())
    return;
  // Bounding the update by a share of the rest of the round keeps it under that share of the
  // whole round, with room for the update's own overheads.
  const search::UpdateBudget budget{.seconds =
                                        options_.updateShare * (times.search + times.measure)};
  const auto start = SteadyClock::now();
  model_.update(measurements, budget);
  times.update = secondsSince(start);
}

void Tuner::report(int round, int t, int measured, int valid, const RoundTimes& times) {
  ++summary_.rounds;
  summary_.measureSeconds += times.measure;
  summary_.updateSeconds += times.update;
  RoundReport report{.round = round,
                     .seconds = elapsedSeconds(),
                     .trials = database_.tuningTrials(),
                     .trialBudget = options_.trials,
                     .measured = measured,
                     .valid = valid,
                     .estimatedSeconds = weightedSeconds(false),
                     .defaultSeconds = weightedSeconds(true),
                     .searchSeconds = times.search,
                     .measureSeconds = times.measure,
                     .updateSeconds = times.update};
  if (t >= 0) {
    const TaskState& task = *tasks_[static_cast<std::size_t>(t)];
    report.taskKey = task.search.task.key;
    report.taskAnchor = task.search.task.anchor;
    report.taskBestSeconds = std::isfinite(task.best) ? task.best : 0;
  }
  for (const auto& task : tasks_)
    report.bestSeconds[task->search.task.key] = task->best;
  for (MeasureCallback* callback : callbacks_)
    callback->onRound(report);
}

} // namespace clustune::tune
