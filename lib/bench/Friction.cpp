// Friction metrics over clustune-bench rows; the formulas are in docs/bench.md.
#include "bench/Friction.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace clustune::bench {
namespace {

using CurveKey = std::pair<std::string, std::string>; // model, compiler

} // namespace

FrictionReport computeFriction(const std::vector<BenchRow>& rows) {
  FrictionReport report;
  std::map<CurveKey, std::map<std::int64_t, const BenchRow*>> curves;
  std::vector<std::string> compilerOrder, modelOrder;
  for (const BenchRow& row : rows) {
    if (!row.ok())
      continue;
    curves[{row.model, row.compiler}][row.batch] = &row;
    if (std::find(compilerOrder.begin(), compilerOrder.end(), row.compiler) == compilerOrder.end())
      compilerOrder.push_back(row.compiler);
    if (std::find(modelOrder.begin(), modelOrder.end(), row.model) == modelOrder.end())
      modelOrder.push_back(row.model);
  }
  if (curves.empty())
    return report;
  std::int64_t b0 = std::numeric_limits<std::int64_t>::max();
  for (const auto& [key, points] : curves)
    b0 = std::min(b0, points.begin()->first);
  report.referenceBatch = b0;

  // log2 r(b) per (model, compiler, b > b0), for the coefficients.
  std::map<std::string, std::map<std::pair<std::string, std::int64_t>, double>> logRatios;
  for (const std::string& model : modelOrder) {
    for (const std::string& compiler : compilerOrder) {
      auto found = curves.find({model, compiler});
      if (found == curves.end() || !found->second.contains(b0))
        continue;
      const BenchRow& base = *found->second.at(b0);
      for (const auto& [batch, row] : found->second) {
        CurvePoint point{.model = model, .compiler = compiler, .batch = batch};
        point.relativePerSample = row->perSampleSeconds() / base.perSampleSeconds();
        point.efficiency = row->throughput() / (static_cast<double>(batch) /
                                                static_cast<double>(b0) * base.throughput());
        report.curves.push_back(point);
        if (batch > b0)
          logRatios[compiler][{model, batch}] = std::log2(point.relativePerSample);
      }
    }
  }

  const auto defaultRatios = logRatios.find("default");
  for (const std::string& compiler : compilerOrder) {
    CompilerFriction friction{.compiler = compiler};
    const auto& ratios = logRatios[compiler];
    double sum = 0.0, sharedOwn = 0.0, sharedDefault = 0.0;
    for (const auto& [point, value] : ratios) {
      sum += value;
      if (defaultRatios != logRatios.end() && defaultRatios->second.contains(point)) {
        sharedOwn += value;
        sharedDefault += defaultRatios->second.at(point);
        ++friction.sharedPoints;
      }
    }
    friction.points = static_cast<int>(ratios.size());
    friction.coefficient = friction.points ? sum / friction.points : 0.0;
    friction.reductionVsDefault = friction.sharedPoints
                                      ? (sharedDefault - sharedOwn) / friction.sharedPoints
                                      : std::numeric_limits<double>::quiet_NaN();
    report.compilers.push_back(friction);
  }

  std::set<std::int64_t> batches;
  for (const auto& [key, points] : curves)
    for (const auto& [batch, row] : points)
      batches.insert(batch);
  for (std::int64_t batch : batches) {
    auto latency = [&](const std::string& model, const std::string& compiler) -> double {
      auto found = curves.find({model, compiler});
      if (found == curves.end() || !found->second.contains(batch))
        return -1.0;
      return found->second.at(batch)->medianSeconds;
    };
    for (std::size_t a = 0; a < modelOrder.size(); ++a)
      for (std::size_t b = a + 1; b < modelOrder.size(); ++b)
        for (std::size_t c = 0; c < compilerOrder.size(); ++c)
          for (std::size_t d = c + 1; d < compilerOrder.size(); ++d) {
            const double ac = latency(modelOrder[a], compilerOrder[c]);
            const double bc = latency(modelOrder[b], compilerOrder[c]);
            const double ad = latency(modelOrder[a], compilerOrder[d]);
            const double bd = latency(modelOrder[b], compilerOrder[d]);
            if (ac < 0 || bc < 0 || ad < 0 || bd < 0 || (ac < bc) == (ad < bd))
              continue;
            RankingReversal reversal{.batch = batch,
                                     .modelA = modelOrder[a],
                                     .modelB = modelOrder[b],
                                     .compilerA = compilerOrder[c],
                                     .compilerB = compilerOrder[d]};
            if (ac > bc)
              std::swap(reversal.modelA, reversal.modelB);
            report.reversals.push_back(reversal);
          }
  }
  return report;
}

nlohmann::ordered_json toJson(const FrictionReport& report) {
  nlohmann::ordered_json curves = nlohmann::ordered_json::array();
  for (const CurvePoint& point : report.curves)
    curves.push_back({{"model", point.model},
                      {"compiler", point.compiler},
                      {"batch", point.batch},
                      {"relative_per_sample", point.relativePerSample},
                      {"efficiency", point.efficiency}});
  nlohmann::ordered_json compilers = nlohmann::ordered_json::array();
  for (const CompilerFriction& friction : report.compilers) {
    nlohmann::ordered_json entry = {{"compiler", friction.compiler},
                                    {"friction", friction.coefficient},
                                    {"points", friction.points}};
    if (!std::isnan(friction.reductionVsDefault))
      entry["reduction_vs_default"] = friction.reductionVsDefault;
    compilers.push_back(entry);
  }
  nlohmann::ordered_json reversals = nlohmann::ordered_json::array();
  for (const RankingReversal& reversal : report.reversals)
    reversals.push_back({{"batch", reversal.batch},
                         {"faster_under_first", reversal.modelA},
                         {"slower_under_first", reversal.modelB},
                         {"first", reversal.compilerA},
                         {"second", reversal.compilerB}});
  return {{"bench", "clustune-bench-friction"},
          {"reference_batch", report.referenceBatch},
          {"compilers", compilers},
          {"curves", curves},
          {"reversals", reversals}};
}

} // namespace clustune::bench
