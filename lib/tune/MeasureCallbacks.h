// What the tuner reports after each round (MetaSchedule's MeasureCallback): the progress line on
// stderr and the search curve, one JSON line per round for plots (docs/formats.md "tuning
// curve"). A round report carries the whole state a plot needs, so a callback keeps none.
#pragma once

#include "support/AppendLog.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace clustune::tune {

struct RoundReport {
  int round = 0;       // 0: the default schedules, measured before the search
  double seconds = 0;  // tuning time so far, over every run of the log
  int trials = 0;      // tuning trials so far, over every run of the log
  int trialBudget = 0; // 0: none
  std::string taskKey = {};
  std::string taskAnchor = {};
  int measured = 0; // in this round
  int valid = 0;
  double taskBestSeconds = 0;  // the round's task, after the round (0: no valid record yet)
  double estimatedSeconds = 0; // Σ weight × best task latency
  double defaultSeconds = 0;   // Σ weight × default-schedule latency
  std::map<std::string, double> bestSeconds = {}; // per task key
  double searchSeconds = 0;                       // this round: evolution, features and prediction
  double measureSeconds = 0;                      // this round: build, run, check
  double updateSeconds = 0;                       // this round: cost-model update
};

class MeasureCallback {
public:
  virtual ~MeasureCallback() = default;
  virtual void onRound(const RoundReport& report) = 0;
};

// One log line per round (spdlog info): round, trials, time, the round's task and the model's
// estimated latency with its speedup over default schedules.
class ProgressLogger final : public MeasureCallback {
public:
  void onRound(const RoundReport& report) override;
};

// The search curve: one JSON line per round appended to a file (a resumed run continues it),
// as durable as the tuning log (support/AppendLog.h).
class CurveWriter final : public MeasureCallback {
public:
  explicit CurveWriter(const std::string& path); // throws clustune::Error when it cannot open
  void onRound(const RoundReport& report) override;

private:
  AppendLog log_;
};

} // namespace clustune::tune
