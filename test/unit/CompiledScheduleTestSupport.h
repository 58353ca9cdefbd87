// Shared by the schedule tests that go through LLVM: lower a scheduled two-input, one-output
// workload, compile and run it on seeded inputs, and compare with the interpreter.
#pragma once

#include "CpuCodegenTestSupport.h"
#include "ScheduleTestSupport.h"
#include "te/Interpreter.h"

#include <gtest/gtest.h>
#include <string>

namespace clustune::schedule::testing {

inline ::testing::AssertionResult
compiledMatchesInterpreter(const Workload& workload, const State& state, const std::string& name,
                           const graph::Shape& outputShape, std::uint64_t seed) {
  namespace cg = clustune::codegen::testing;
  const te::LoweredFunction function = lower(workload, state, name);
  const clustune::codegen::LoadedKernel kernel = cg::compile(function);
  std::vector<TensorData> inputs = randomInputs(workload, seed);
  const std::vector<TensorData> expected = te::evaluateWorkload(workload, inputs);
  TensorData output(graph::DataType::Float32, outputShape);
  cg::run(kernel, {inputs[0].data(), inputs[1].data(), output.data()});
  if (allClose(output, expected[0], 1e-5))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << te::toString(function);
}

} // namespace clustune::schedule::testing
