// Depth curves over clustune-bench rows.
#include "bench/DepthSweep.h"

#include "support/Error.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <tuple>

namespace clustune::bench {

std::optional<std::pair<std::string, int>> parseDepthName(const std::string& model) {
  const auto marker = model.rfind("_d");
  if (marker == std::string::npos || marker == 0 || marker + 2 >= model.size())
    return std::nullopt;
  int depth = 0;
  const char* begin = model.data() + marker + 2;
  const char* end = model.data() + model.size();
  const auto [last, status] = std::from_chars(begin, end, depth);
  if (status != std::errc() || last != end || depth < 1)
    return std::nullopt;
  return std::pair{model.substr(0, marker), depth};
}

std::vector<DepthPoint> computeDepthCurves(const std::vector<BenchRow>& rows) {
  using CurveKey = std::tuple<std::string, std::string, std::int64_t>; // family, compiler, batch
  std::map<CurveKey, std::vector<DepthPoint>> curves;
  for (const BenchRow& row : rows) {
    const auto name = parseDepthName(row.model);
    if (!name)
      throw Error("depth sweep: model '" + row.model +
                  "' is not named <family>_d<depth> (scripts/make_block_models.py)");
    if (!row.ok())
      continue;
    curves[{name->first, row.compiler, row.batch}].push_back({.family = name->first,
                                                              .compiler = row.compiler,
                                                              .batch = row.batch,
                                                              .depth = name->second,
                                                              .medianSeconds = row.medianSeconds,
                                                              .throughput = row.throughput(),
                                                              .distinctTasks = row.distinctTasks});
  }
  std::vector<DepthPoint> points;
  for (auto& [key, curve] : curves) {
    std::sort(curve.begin(), curve.end(),
              [](const DepthPoint& a, const DepthPoint& b) { return a.depth < b.depth; });
    const DepthPoint& base = curve.front();
    for (DepthPoint& point : curve) {
      point.relativePerBlock =
          (point.medianSeconds / point.depth) / (base.medianSeconds / base.depth);
      points.push_back(point);
    }
  }
  return points;
}

nlohmann::ordered_json toJson(const std::vector<DepthPoint>& points) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const DepthPoint& point : points) {
    nlohmann::ordered_json entry = {{"family", point.family},
                                    {"compiler", point.compiler},
                                    {"batch", point.batch},
                                    {"depth", point.depth},
                                    {"latency_ms", point.medianSeconds * 1e3},
                                    {"throughput_per_s", point.throughput},
                                    {"relative_per_block", point.relativePerBlock}};
    if (point.distinctTasks > 0)
      entry["distinct_tasks"] = point.distinctTasks;
    list.push_back(entry);
  }
  return list;
}

} // namespace clustune::bench
