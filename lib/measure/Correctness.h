// The correctness check of measurement (DESIGN §5): a candidate's outputs are compared with the
// task's reference outputs on the same seeded inputs. The reference comes from the tensor-
// expression interpreter (te/Interpreter.h), which shares no code with schedules or code
// generation, so a bug there cannot agree with itself; it is computed once per task.
#pragma once

#include "graph/Task.h"
#include "te/TensorData.h"

#include <cstdint>
#include <string>
#include <vector>

namespace clustune::measure {

// The task's outputs on generateInputs(argumentSpecs(task, ...), seed), by the interpreter.
// Throws clustune::Error when the task cannot be lowered or evaluated.
std::vector<te::TensorData> referenceOutputs(const graph::Task& task, std::uint64_t seed);

struct CheckResult {
  bool ok = true;
  std::string detail = {}; // the first mismatch, when !ok
};

// Floating-point elements match when |a - r| <= 1e-4·max(1, s) + 1e-3·|r|, where s is the root
// mean square of the reference output (the conformance tests' tolerance when s <= 1), or when
// both are NaN, or both the same infinity; other dtypes must be equal. Shapes, dtypes and the
// number of outputs must agree. The absolute term grows with s because a float32 reduction's
// rounding error grows with its partial sums: a 3-D convolution summing 13,824 products of
// values in [-1, 1] (outputs of RMS ~40) differs from another summation order by ~1e-4 at an
// output near zero, while a wrong index or a missing term is off by the order of s.
CheckResult checkAgainstReference(const std::vector<te::TensorData>& outputs,
                                  const std::vector<te::TensorData>& reference);

} // namespace clustune::measure
