// See Correctness.h.
#include "measure/Correctness.h"

#include "measure/SeededInputs.h"
#include "te/Interpreter.h"
#include "te/LowerTask.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace clustune::measure {
namespace {

bool elementsMatch(double actual, double expected, bool floatingPoint, double absoluteTolerance) {
  if (!floatingPoint)
    return actual == expected;
  if (std::isnan(actual) || std::isnan(expected))
    return std::isnan(actual) && std::isnan(expected);
  if (std::isinf(actual) || std::isinf(expected))
    return actual == expected;
  return std::fabs(actual - expected) <= absoluteTolerance + 1e-3 * std::fabs(expected);
}

// Root mean square of the finite elements; 0 for none.
double rootMeanSquare(const te::TensorData& data) {
  double sum = 0;
  std::int64_t count = 0;
  for (std::int64_t e = 0; e < data.elements(); ++e)
    if (const double value = data.get(e); std::isfinite(value)) {
      sum += value * value;
      ++count;
    }
  return count == 0 ? 0.0 : std::sqrt(sum / static_cast<double>(count));
}

} // namespace

std::vector<te::TensorData> referenceOutputs(const graph::Task& task, std::uint64_t seed) {
  const te::Workload workload = te::lowerTask(task);
  return te::evaluateWorkload(workload, generateInputs(argumentSpecs(task, workload), seed));
}

CheckResult checkAgainstReference(const std::vector<te::TensorData>& outputs,
                                  const std::vector<te::TensorData>& reference) {
  if (outputs.size() != reference.size())
    return {false, std::to_string(outputs.size()) + " outputs, the reference has " +
                       std::to_string(reference.size())};
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    const te::TensorData& actual = outputs[k];
    const te::TensorData& expected = reference[k];
    if (actual.dtype() != expected.dtype() || actual.shape() != expected.shape())
      return {false, "output " + std::to_string(k) + " is " + graph::dataTypeName(actual.dtype()) +
                         "[" + graph::shapeToString(actual.shape()) + "], the reference " +
                         graph::dataTypeName(expected.dtype()) + "[" +
                         graph::shapeToString(expected.shape()) + "]"};
    const bool floatingPoint = graph::isFloatingPoint(actual.dtype());
    const double absoluteTolerance =
        floatingPoint ? 1e-4 * std::max(1.0, rootMeanSquare(expected)) : 0.0;
    std::int64_t mismatches = 0, first = -1;
    for (std::int64_t e = 0; e < actual.elements(); ++e)
      if (!elementsMatch(actual.get(e), expected.get(e), floatingPoint, absoluteTolerance) &&
          mismatches++ == 0)
        first = e;
    if (mismatches > 0) {
      std::ostringstream detail;
      detail.precision(9);
      detail << "output " << k << ": " << mismatches << " of " << actual.elements()
             << " elements differ; first at element " << first << ": " << actual.get(first)
             << " instead of " << expected.get(first);
      return {false, detail.str()};
    }
  }
  return {};
}

} // namespace clustune::measure
