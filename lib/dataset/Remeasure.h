// Measuring given schedules again: the schedules of another records.jsonl (a dataset, a tuning
// log), for the tasks of a tasks.jsonl, each built, run and checked like a campaign's candidate
// and appended as a new record that keeps the source's sampling fields. This is how two
// measurement protocols, or two builds of clustune, are compared on the same schedules
// (clustune-measure --schedules). Schedules the output already holds for their task are skipped,
// so an interrupted run resumes.
#pragma once

#include "dataset/Campaign.h"

namespace clustune::dataset {

struct RemeasureOptions {
  int batchSize = 16;           // candidates built together, then run one by one
  double timeBudgetSeconds = 0; // no new batch starts after this; 0 = no limit
  std::string target = {};      // written into every record
};

// Measures every schedule of `schedules` whose task is in `tasks`, task by task in the order
// of `tasks`, and in file order within a task. Schedules of tasks not in `tasks` are counted
// in the summary's tasksSkipped (per task) and logged.
CampaignSummary remeasureSchedules(const std::vector<graph::Task>& tasks,
                                   const std::vector<measure::Record>& schedules,
                                   measure::Measurer& measurer, measure::RecordAppender& output,
                                   MeasuredIndex& index, const RemeasureOptions& options);

} // namespace clustune::dataset
