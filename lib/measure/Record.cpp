// See Record.h.
#include "measure/Record.h"

#include "support/Jsonl.h"

#include <cmath>

namespace clustune::measure {
namespace {

bool isKnownErrorKind(const std::string& kind) {
  for (const char* known : errors::kAll)
    if (kind == known)
      return true;
  return false;
}

const nlohmann::json* optionalField(const nlohmann::json& entry, const char* name) {
  auto found = entry.find(name);
  return found == entry.end() || found->is_null() ? nullptr : &*found;
}

} // namespace

double Record::meanCost() const {
  double sum = 0;
  for (double cost : costs)
    sum += cost;
  return costs.empty() ? 0.0 : sum / static_cast<double>(costs.size());
}

Record makeRecord(const std::string& taskKey, const std::string& target,
                  const std::vector<schedule::Step>& steps, const MeasureResult& result) {
  return Record{.task = taskKey,
                .target = target,
                .schedule = steps,
                .costs = result.costs,
                .error = result.error,
                .errorDetail = result.errorDetail,
                .compileSeconds = result.compileSeconds};
}

nlohmann::ordered_json recordToJson(const Record& record) {
  nlohmann::ordered_json json;
  json["v"] = kRecordVersion;
  json["task"] = record.task;
  json["target"] = record.target;
  json["schedule"] = schedule::toJson(record.schedule);
  json["costs"] = record.costs;
  json["error"] =
      record.error.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(record.error);
  json["error_detail"] = record.errorDetail.empty() ? nlohmann::ordered_json()
                                                    : nlohmann::ordered_json(record.errorDetail);
  // Milliseconds are plenty and keep lines short.
  json["compile_seconds"] = std::round(record.compileSeconds * 1e4) / 1e4;
  json["sample_seed"] = record.sampleSeed;
  json["sample_index"] = record.sampleIndex;
  if (record.tuneRound >= 0) {
    json["tune_round"] = record.tuneRound;
    json["tune_seconds"] = std::round(record.tuneSeconds * 1e3) / 1e3;
  }
  return json;
}

Record recordFromJson(const nlohmann::json& entry, const ErrorContext& context) {
  if (requireField<int>(entry, "v", context) != kRecordVersion)
    throw Error("unsupported record version (this build reads v " + std::to_string(kRecordVersion) +
                    ")",
                context);
  Record record;
  record.task = requireField<std::string>(entry, "task", context);
  if (optionalField(entry, "target"))
    record.target = requireField<std::string>(entry, "target", context);
  try {
    record.schedule =
        schedule::stepsFromJson(requireField<nlohmann::json>(entry, "schedule", context));
  } catch (const Error& error) {
    throw Error("invalid schedule: " + error.message(), context);
  }
  record.costs = requireField<std::vector<double>>(entry, "costs", context);
  if (optionalField(entry, "error")) {
    record.error = requireField<std::string>(entry, "error", context);
    if (!isKnownErrorKind(record.error))
      throw Error("field 'error' has the unknown kind '" + record.error + "'", context);
    if (!record.costs.empty())
      throw Error("a record with an error has costs", context);
  }
  for (double cost : record.costs)
    if (!(cost > 0.0) || !std::isfinite(cost))
      throw Error("field 'costs' holds a non-positive or non-finite cost", context);
  if (optionalField(entry, "error_detail"))
    record.errorDetail = requireField<std::string>(entry, "error_detail", context);
  if (optionalField(entry, "compile_seconds"))
    record.compileSeconds = requireField<double>(entry, "compile_seconds", context);
  if (optionalField(entry, "sample_seed"))
    record.sampleSeed = requireField<std::uint64_t>(entry, "sample_seed", context);
  if (optionalField(entry, "sample_index"))
    record.sampleIndex = requireField<int>(entry, "sample_index", context);
  if (optionalField(entry, "tune_round")) {
    record.tuneRound = requireField<int>(entry, "tune_round", context);
    record.tuneSeconds = requireField<double>(entry, "tune_seconds", context);
    if (record.tuneRound < 0 || !(record.tuneSeconds >= 0) || !std::isfinite(record.tuneSeconds))
      throw Error("fields 'tune_round' and 'tune_seconds' must be non-negative", context);
  }
  return record;
}

} // namespace clustune::measure
