// A measurement campaign (issue 4, DESIGN §5 and §9): for each task, draw schedules with
// search::sample, measure them (build in parallel, run in the isolated worker, check against
// the reference) and append one record per candidate, errors included, until the task has
// `perTask` valid records. This is the engine of clustune-measure and of the shipped datasets.
//
// Resuming and sharding follow from determinism. A task's candidates are search::sample's list
// for a seed derived from the campaign seed and the task key, and candidate k is the same
// whatever the list length; a campaign skips every schedule its output already holds for the
// task. So an interrupted run, rerun with the same flags, measures exactly what is missing, and
// shards (disjoint task sets) concatenate into the records a single run would write.
#pragma once

#include "dataset/Shard.h"
#include "graph/Task.h"
#include "measure/Measurer.h"
#include "measure/RecordLog.h"
#include "search/Sample.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace clustune::dataset {

struct CampaignOptions {
  int perTask = 300; // valid records wanted per task
  std::uint64_t seed = 0;
  Shard shard = {};
  search::SampleOptions sampling = {};
  int batchSize = 16;           // candidates built together, then run one by one
  double timeBudgetSeconds = 0; // no new batch starts after this; 0 = no limit
  // The output holds at most this many records, counting those it had; 0 = no limit.
  std::int64_t maxRecords = 0;
  int maxCandidatesFactor = 4; // at most perTask × this candidates per task
  std::string target = {};     // written into every record
};

// What a log already holds per task: the schedules measured and how many were valid.
struct TaskProgress {
  std::set<std::string> measured; // schedule::scheduleText of every record
  int valid = 0;
};
using MeasuredIndex = std::map<std::string, TaskProgress>;

// Reads an existing records.jsonl into an index (an absent file gives an empty one).
MeasuredIndex indexRecords(const std::string& path);

struct CampaignSummary {
  int tasks = 0;            // in the shard
  int tasksComplete = 0;    // have perTask valid records now
  int tasksExhausted = 0;   // the space (or the candidate cap) ran out first
  int tasksSkipped = 0;     // could not be sampled: logged with the reason
  std::int64_t records = 0; // written by this run
  std::int64_t valid = 0;
  std::map<std::string, std::int64_t> errors; // kind -> records of this run
  std::vector<double> compileSeconds;         // per built candidate of this run
  double seconds = 0;
  std::string stoppedBy = {}; // "", "time_budget" or "max_records"
};

// Appends a measured candidate's record to `output` and counts it in the task's progress and
// the summary (records, valid, errors by kind, compile seconds); true when it is valid.
bool appendMeasured(const measure::Record& record, double compileSeconds,
                    measure::RecordAppender& output, TaskProgress& progress,
                    CampaignSummary& summary);

// The sampling seed of a task: records keep it, so `search::sample(task, k + 1, seed)[k]`
// reproduces record k's schedule.
std::uint64_t taskSampleSeed(std::uint64_t campaignSeed, const std::string& taskKey);

CampaignSummary runCampaign(const std::vector<graph::Task>& tasks, measure::Measurer& measurer,
                            measure::RecordAppender& output, MeasuredIndex& index,
                            const CampaignOptions& options);

} // namespace clustune::dataset
