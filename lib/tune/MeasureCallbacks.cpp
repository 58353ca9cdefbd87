// See MeasureCallbacks.h.
#include "tune/MeasureCallbacks.h"

#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

namespace clustune::tune {
namespace {

double milliseconds(double seconds) {
  return std::round(seconds * 1e9) / 1e6;
}

nlohmann::ordered_json millisecondsOrNull(double seconds) {
  return std::isfinite(seconds) && seconds > 0 ? nlohmann::ordered_json(milliseconds(seconds))
                                               : nlohmann::ordered_json();
}

} // namespace

void ProgressLogger::onRound(const RoundReport& report) {
  const std::string trials = report.trialBudget > 0
                                 ? fmt::format("{}/{}", report.trials, report.trialBudget)
                                 : std::to_string(report.trials);
  const std::string task = report.round == 0
                               ? "default schedules"
                               : fmt::format("{} {} best {:.4g} ms", report.taskKey,
                                             report.taskAnchor, report.taskBestSeconds * 1e3);
  const bool known = std::isfinite(report.estimatedSeconds) && report.estimatedSeconds > 0;
  spdlog::info("round {:>4} | trials {} | {:.0f} s | {} ({}/{} valid) | estimated {} ms, {}x "
               "over default",
               report.round, trials, report.seconds, task, report.valid, report.measured,
               known ? fmt::format("{:.4g}", report.estimatedSeconds * 1e3) : "?",
               known ? fmt::format("{:.2f}", report.defaultSeconds / report.estimatedSeconds)
                     : "?");
}

CurveWriter::CurveWriter(const std::string& path) : log_(path) {}

void CurveWriter::onRound(const RoundReport& report) {
  nlohmann::ordered_json line;
  line["v"] = 1;
  line["round"] = report.round;
  line["seconds"] = std::round(report.seconds * 1e3) / 1e3;
  line["trials"] = report.trials;
  line["task"] =
      report.taskKey.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(report.taskKey);
  line["measured"] = report.measured;
  line["valid"] = report.valid;
  line["estimated_ms"] = millisecondsOrNull(report.estimatedSeconds);
  line["default_ms"] = millisecondsOrNull(report.defaultSeconds);
  line["search_s"] = std::round(report.searchSeconds * 1e3) / 1e3;
  line["measure_s"] = std::round(report.measureSeconds * 1e3) / 1e3;
  line["update_s"] = std::round(report.updateSeconds * 1e3) / 1e3;
  nlohmann::ordered_json best = nlohmann::ordered_json::object();
  for (const auto& [key, seconds] : report.bestSeconds)
    best[key] = millisecondsOrNull(seconds);
  line["best_ms"] = std::move(best);
  log_.append(line.dump());
}

} // namespace clustune::tune
