// The tuning log as the tuner's database (DESIGN §7, MetaSchedule's Database): an append-only
// records.jsonl with one line per measured candidate, errors included. Opening it reads what an
// earlier run of the same log measured for the tuned tasks, so a rerun resumes: it skips every
// schedule measured before, counts the earlier tuning trials and seconds against the budget and
// continues the round numbering. Appends go through measure::RecordAppender (one write(2) per
// line), so a killed run leaves whole lines and loses none of them.
#pragma once

#include "measure/RecordLog.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

namespace clustune::tune {

class Database {
public:
  // Opens (or creates) the log at `path`, removing a partial last line a kill left, and reads
  // the records of `taskKeys`. Throws clustune::Error for a malformed line (file:line) and for
  // a record of these tasks measured on another target than `target`: timings of two machines
  // must not mix in one search.
  Database(const std::string& path, const std::set<std::string>& taskKeys,
           const std::string& target);

  // Every record of `taskKey` in file order (none: empty).
  const std::vector<measure::Record>& records(const std::string& taskKey) const;
  bool measured(const std::string& taskKey, const std::string& scheduleText) const;
  const std::unordered_set<std::string>& measuredTexts(const std::string& taskKey) const;

  // Appends to the file and to memory.
  void append(measure::Record record);

  // Records written by the tuner (tuneRound >= 0): the trials a resumed run has already spent.
  int tuningTrials() const { return tuningTrials_; }
  int lastRound() const { return lastRound_; }
  double elapsedSeconds() const { return elapsedSeconds_; }
  const std::string& path() const { return path_; }

private:
  void remember(measure::Record&& record);

  std::string path_;
  std::unique_ptr<measure::RecordAppender> appender_;
  std::map<std::string, std::vector<measure::Record>> records_;
  std::map<std::string, std::unordered_set<std::string>> measured_;
  int tuningTrials_ = 0;
  int lastRound_ = -1;
  double elapsedSeconds_ = 0;
};

} // namespace clustune::tune
