// The tuning loop (DESIGN §7), what clustune-tune runs: measure every task's default schedule,
// then round after round let the task scheduler pick a task, the search strategy propose
// candidates with the cost model, measure them (built in parallel, run in the isolated
// worker, checked against the reference), append every result to the log, and teach the cost
// model what they cost, until the trial budget or the time budget is spent or no task has
// candidates left. Every piece is an interface (search::SearchStrategy, search::CostModel,
// search::TaskScheduler, Database, MeasureCallback), as in TVM MetaSchedule, so experiments
// swap one without touching the loop.
//
// A round also offers the strategy the fastest schedules of the task's siblings, tasks whose
// reductions are the same computation, and of its relatives, the same reductions on other shapes
// (ScheduleTransfer.h). Donor tasks, tuned in another run (the same model at another batch size,
// another model), are siblings and relatives too: their logged schedules are offered, and they
// are never tuned themselves.
//
// Rerunning on the same log resumes: the Database holds the earlier trials and seconds, the
// scheduler's state is rebuilt from the rounds recorded in the log, and the cost model learns
// from the earlier measurements before the first new round.
#pragma once

#include "graph/Task.h"
#include "measure/Measurer.h"
#include "measure/Record.h"
#include "schedule/DefaultGpuSchedule.h"
#include "schedule/DefaultSchedule.h"
#include "search/SearchStrategy.h"
#include "search/TaskScheduler.h"
#include "tune/Database.h"
#include "tune/MeasureCallbacks.h"

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace clustune::tune {

struct TuneOptions {
  int trials = 0;               // measured candidates in all, defaults included; 0: no limit
  double timeBudgetSeconds = 0; // no round starts after this; 0: no limit
  int perRound = 64;            // candidates measured per round, at most (see roundSize)
  int fastestSeeds = 410;       // fastest measured candidates kept per task as seeds
  // The most schedules of sibling and relative tasks (search/ScheduleTransfer.h) rewritten for
  // a round's task and offered to the search strategy, fastest per FLOP first; 0: no transfer.
  int transferSeeds = 16;
  // Of them, the most from one relative (a reduction of the same kind on other shapes): its
  // fastest schedules, their split factors fitted to the task; 0: siblings only.
  int relativeSeeds = 4;
  // The most a round's cost-model update may take, as a share of the round's search and
  // measurement time; 0: no limit. Resuming learns a whole log without a limit.
  double updateShare = 0.1;
  std::uint64_t seed = 0;
  std::string target = {}; // written into every record
  schedule::CpuScheduleOptions defaults = {};
  // For a GPU target: round 0 measures the default GPU schedule instead.
  std::optional<schedule::GpuScheduleOptions> gpuDefaults = {};
};

// A task tuned in another run, with that run's records of it.
struct DonorTask {
  graph::Task task;
  std::vector<measure::Record> records;
};

struct TuneSummary {
  int tasks = 0;
  int trials = 0;                    // tuning trials in the log, earlier runs included
  int newTrials = 0;                 // of them, this run's
  int rounds = 0;                    // this run's rounds, round 0 (the defaults) included
  int valid = 0;                     // this run's valid records
  std::map<std::string, int> errors; // this run's records by error kind
  double seconds = 0;                // this run's wall time
  double totalSeconds = 0;           // tuning seconds in the log
  double searchSeconds = 0;          // this run: proposing candidates
  double measureSeconds = 0;         // this run: measuring them
  double updateSeconds = 0;          // this run: cost-model updates
  double defaultSeconds = 0;         // Σ weight × default latency (0: unknown)
  double estimatedSeconds = 0;       // Σ weight × best latency (0: unknown)
  int exhaustedTasks = 0;
  int transferredTrials = 0;    // this run's candidates that were sibling tasks' schedules
  int transferredBestTasks = 0; // tasks whose fastest schedule is one transferred to them
  int donorTasks = 0;           // donors with a valid schedule that lowers
  std::string stoppedBy = {};   // "trials", "time_budget" or "exhausted"
};

class Tuner {
public:
  // `tasks` carry their weights (occurrences in the tuned models). Throws clustune::Error for
  // a task or a donor that cannot be lowered.
  Tuner(const std::vector<graph::Task>& tasks, measure::Measurer& measurer,
        search::CostModel& model, search::SearchStrategy& strategy,
        search::TaskScheduler& scheduler, Database& database, TuneOptions options,
        const std::vector<DonorTask>& donors = {});
  ~Tuner();

  void addCallback(MeasureCallback& callback) { callbacks_.push_back(&callback); }
  TuneSummary run();

private:
  struct TaskState;

  struct RoundTimes {
    double search = 0, measure = 0, update = 0;
  };

  std::vector<schedule::Step> defaultSchedule(const te::Workload& workload) const;
  std::unique_ptr<TaskState> makeDonor(const DonorTask& donor) const;
  void linkRelatives();
  void resume();
  void measureDefaults();
  // One round; false when a budget is spent or no task has candidates left.
  bool runRound();
  // Measures candidates (each with its task index) as round `round`, appends their records,
  // and returns the valid measurements.
  std::vector<search::Measurement>
  measure(std::vector<std::pair<int, search::Candidate>> candidates, int round);
  void learn(const std::vector<search::Measurement>& measurements, RoundTimes& times);
  // The fastest schedules of task t's siblings and relatives that replay on it and were not
  // measured for it, fastest per FLOP first, at most options_.transferSeeds.
  std::vector<search::Candidate> transferredCandidates(int t) const;
  void report(int round, int task, int measured, int valid, const RoundTimes& times);
  double elapsedSeconds() const;
  double weightedSeconds(bool defaults) const;
  int trialsLeft() const;
  // The most candidates the next round of task t measures.
  int roundSize(int t) const;

  std::vector<std::unique_ptr<TaskState>> tasks_;
  std::vector<std::unique_ptr<TaskState>> donors_; // never scheduled: see DonorTask
  measure::Measurer& measurer_;
  search::CostModel& model_;
  search::SearchStrategy& strategy_;
  search::TaskScheduler& scheduler_;
  Database& database_;
  TuneOptions options_;
  std::vector<MeasureCallback*> callbacks_;
  TuneSummary summary_;
  double startElapsed_ = 0;
  std::chrono::steady_clock::time_point start_;
};

} // namespace clustune::tune
