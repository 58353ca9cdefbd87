// Regression test of Concat in unrolled code: Inception-V3's last Concat + GlobalAveragePool
// (dataset task 9f1ccc7000a375f8, sample 259) picks one of six inputs per element. Emitted as a
// branch per element and unrolled 512 times, it made LLVM's LazyValueInfo run for minutes
// (the dataset recorded it as compile_timeout). The code generator now selects the address and
// loads once (ExprEmitter.cpp); the kernel must match the reference, and its optimised IR must
// not branch per element.
#include "MeasureTestSupport.h"
#include "codegen/cpu/CpuCodegen.h"
#include "measure/Measurer.h"
#include "schedule/Lower.h"
#include "schedule/State.h"
#include "te/LowerTask.h"

#include <gtest/gtest.h>

namespace clustune::measure {
namespace {

const char* const kTask =
    R"json({"v":1,"key":"9f1ccc7000a375f8","anchor":"GlobalAveragePool","pattern":"CommReduce","weight":1,"weights":{"inception_v3":1},"flops":131072,"bytes_read":524288,"bytes_written":8192,"inputs":[{"shape":[1,320,8,8],"dtype":"float32","kind":"activation"},{"shape":[1,384,8,8],"dtype":"float32","kind":"activation"},{"shape":[1,384,8,8],"dtype":"float32","kind":"activation"},{"shape":[1,384,8,8],"dtype":"float32","kind":"activation"},{"shape":[1,384,8,8],"dtype":"float32","kind":"activation"},{"shape":[1,192,8,8],"dtype":"float32","kind":"activation"}],"nodes":[{"op":"Concat","pattern":"Injective","attrs":{"axis":1},"inputs":[{"input":0},{"input":1},{"input":2},{"input":3},{"input":4},{"input":5}],"outputs":[{"shape":[1,2048,8,8],"dtype":"float32"}]},{"op":"GlobalAveragePool","pattern":"CommReduce","attrs":{},"inputs":[{"node":0,"output":0}],"outputs":[{"shape":[1,2048,1,1],"dtype":"float32"}]}],"outputs":[{"node":1,"output":0}]})json";

const char* const kSchedule =
    R"json([{"step":"compute_inline","stage":0},{"step":"split","stage":1,"iterator":5,"factors":[8]},{"step":"split","stage":1,"iterator":4,"factors":[2]},{"step":"split","stage":1,"iterator":3,"factors":[1,1,1]},{"step":"split","stage":1,"iterator":2,"factors":[1,1,1]},{"step":"split","stage":1,"iterator":1,"factors":[2,4,64]},{"step":"split","stage":1,"iterator":0,"factors":[1,1,1]},{"step":"reorder","stage":1,"order":[0,4,8,12,1,5,9,13,16,18,2,6,10,14,17,19,3,7,11,15]},{"step":"split","stage":2,"iterator":3,"factors":[1]},{"step":"split","stage":2,"iterator":2,"factors":[1]},{"step":"split","stage":2,"iterator":1,"factors":[512]},{"step":"split","stage":2,"iterator":0,"factors":[1]},{"step":"reorder","stage":2,"order":[0,2,4,6,1,3,5,7]},{"step":"compute_at","stage":1,"target_stage":2,"target_iterator":3},{"step":"fuse","stage":2,"iterators":[0,1,2,3]},{"step":"annotate","stage":2,"iterator":0,"annotation":"parallel"},{"step":"pragma","stage":2,"iterator":0,"auto_unroll_max_step":512}])json";

graph::Task concatTask() {
  return graph::taskFromJson(nlohmann::json::parse(kTask), {});
}

std::vector<schedule::Step> unrolledSchedule() {
  return schedule::stepsFromJson(nlohmann::json::parse(kSchedule));
}

TEST(CpuCodegenConcatTest, UnrolledConcatScheduleRunsAndMatches) {
  Measurer measurer(testing::host(), {.runner = testing::quickRunnerOptions()});
  const std::vector<MeasureResult> results = measurer.measure({{concatTask(), unrolledSchedule()}});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_TRUE(results[0].ok()) << results[0].error << ": " << results[0].errorDetail;
}

TEST(CpuCodegenConcatTest, UnrolledConcatDoesNotBranchPerElement) {
  const te::Workload workload = te::lowerTask(concatTask());
  const schedule::State state = schedule::replay(workload, unrolledSchedule());
  const std::string ir =
      codegen::emitLlvmIr(schedule::lower(workload, state, "concat"), testing::host());
  // Each of the 4 parallel iterations sums 32,768 elements (512 channels of 8x8), each from one
  // of six inputs; only the loops themselves may branch.
  std::size_t conditionalBranches = 0;
  for (std::size_t at = ir.find("br i1"); at != std::string::npos; at = ir.find("br i1", at + 1))
    ++conditionalBranches;
  EXPECT_LT(conditionalBranches, 20u);
}

} // namespace
} // namespace clustune::measure
