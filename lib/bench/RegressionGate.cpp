// The regression gate: a slowdown counts only beyond both the threshold and the measured noise,
// so that a CI gate on a shared machine fails for regressions and not for jitter.
#include "bench/RegressionGate.h"

#include "support/Error.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <tuple>

namespace clustune::bench {
namespace {

void addDistinct(std::vector<std::string>& list, const std::string& value) {
  if (!value.empty() && std::find(list.begin(), list.end(), value) == list.end())
    list.push_back(value);
}

} // namespace

GateResult applyGate(const std::vector<BenchRow>& current, const std::vector<BenchRow>& baseline,
                     double maxSlowdown) {
  GateResult result;
  std::map<std::tuple<std::string, std::int64_t, std::string>, const BenchRow*> byKey;
  for (const BenchRow& row : baseline) {
    byKey[{row.model, row.batch, row.compiler}] = &row;
    addDistinct(result.baselineCpus, row.cpu);
  }
  for (const BenchRow& row : current) {
    addDistinct(result.currentCpus, row.cpu);
    auto found = byKey.find({row.model, row.batch, row.compiler});
    if (found == byKey.end()) {
      ++result.withoutBaseline;
      continue;
    }
    const BenchRow& before = *found->second;
    if (!before.ok())
      continue;
    if (!row.ok()) {
      // Ran before and not now. A peer that is simply not installed here is no regression.
      if (row.status != RowStatus::Unavailable)
        result.regressions.push_back({.current = row, .baseline = before});
      continue;
    }
    ++result.compared;
    if (row.threads != before.threads && row.threads > 0 && before.threads > 0)
      ++result.otherThreads;
    if (std::optional<Regression> regression = compareTimedRows(row, before, maxSlowdown))
      result.regressions.push_back(std::move(*regression));
  }
  return result;
}

std::optional<Regression> compareTimedRows(const BenchRow& current, const BenchRow& baseline,
                                           double maxSlowdown) {
  const double slowdown = current.medianSeconds / baseline.medianSeconds - 1.0;
  const double noise = std::max(current.relativeSpread(), baseline.relativeSpread());
  if (slowdown > maxSlowdown && slowdown > noise)
    return Regression{
        .current = current, .baseline = baseline, .slowdown = slowdown, .noise = noise};
  return std::nullopt;
}

int confirmRegressions(GateResult& result, double maxSlowdown, int attempts,
                       const std::function<BenchRow(const BenchRow&)>& remeasure) {
  int cleared = 0;
  std::erase_if(result.regressions, [&](Regression& regression) {
    if (!regression.current.ok())
      return false;
    for (int attempt = 0; attempt < attempts; ++attempt) {
      const BenchRow again = remeasure(regression.current);
      if (!again.ok())
        return false; // not measurable again: the first run's figures stand
      if (!compareTimedRows(again, regression.baseline, maxSlowdown)) {
        ++cleared;
        return true;
      }
      regression.rerunMedianSeconds.push_back(again.medianSeconds);
    }
    return false;
  });
  return cleared;
}

double parseSlowdown(const std::string& text) {
  std::string number = text;
  bool percent = false;
  while (!number.empty() && number.back() == ' ')
    number.pop_back();
  if (!number.empty() && number.back() == '%') {
    percent = true;
    number.pop_back();
    while (!number.empty() && number.back() == ' ')
      number.pop_back();
  }
  double value = 0.0;
  const auto [end, status] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (number.empty() || status != std::errc() || end != number.data() + number.size() ||
      value < 0.0)
    throw Error("--max-slowdown: '" + text +
                "' is not a non-negative number or percentage "
                "(5% or 0.05)");
  return percent ? value / 100.0 : value;
}

} // namespace clustune::bench
