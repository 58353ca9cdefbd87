// Regression test of gathers in generated code: a sampled schedule of MobileNetV2's strided
// depthwise convolution (dataset pilot, task 50dc1c5f79f5b8b9, sample 5) made LLVM 19 give a
// 64-bit-index gather the same register as index and destination, and the kernel died with
// SIGILL. The code generator now gathers with 32-bit indices (ExprEmitter.cpp); this kernel
// must build, run in the worker and match the reference.
#include "MeasureTestSupport.h"
#include "measure/Measurer.h"

#include <gtest/gtest.h>

namespace clustune::measure {
namespace {

const char* const kTask =
    R"json({"v":1,"key":"50dc1c5f79f5b8b9","anchor":"Conv","pattern":"OutEWiseFusable","weight":1,"weights":{"mobilenet_v2":1},"flops":6021120,"bytes_read":4820736,"bytes_written":1204224,"inputs":[{"shape":[1,96,112,112],"dtype":"float32","kind":"activation"},{"shape":[96,1,3,3],"dtype":"float32","kind":"weight"},{"shape":[96],"dtype":"float32","kind":"weight"}],"nodes":[{"op":"Conv","pattern":"OutEWiseFusable","attrs":{"dilations":[1,1],"group":96,"kernel_shape":[3,3],"pads":[1,1,1,1],"strides":[2,2]},"inputs":[{"input":0},{"input":1},{"input":2}],"outputs":[{"shape":[1,96,56,56],"dtype":"float32"}]},{"op":"Clip","pattern":"ElemWise","attrs":{"max":6.0,"min":0.0},"inputs":[{"node":0,"output":0}],"outputs":[{"shape":[1,96,56,56],"dtype":"float32"}]}],"outputs":[{"node":1,"output":0}]})json";

const char* const kSchedule =
    R"json([{"step":"compute_inline","stage":0},{"step":"compute_inline","stage":2},{"step":"split","stage":1,"iterator":5,"factors":[1]},{"step":"split","stage":1,"iterator":4,"factors":[1]},{"step":"split","stage":1,"iterator":3,"factors":[1,1,56]},{"step":"split","stage":1,"iterator":2,"factors":[1,1,28]},{"step":"split","stage":1,"iterator":1,"factors":[1,1,3]},{"step":"split","stage":1,"iterator":0,"factors":[1,1,1]},{"step":"reorder","stage":1,"order":[0,4,8,12,1,5,9,13,16,18,2,6,10,14,17,19,3,7,11,15]},{"step":"split","stage":3,"iterator":3,"factors":[1,56]},{"step":"split","stage":3,"iterator":2,"factors":[2,28]},{"step":"split","stage":3,"iterator":1,"factors":[4,3]},{"step":"split","stage":3,"iterator":0,"factors":[1,1]},{"step":"reorder","stage":3,"order":[0,3,6,9,1,4,7,10,2,5,8,11]},{"step":"compute_at","stage":1,"target_stage":3,"target_iterator":7},{"step":"annotate","stage":1,"iterator":19,"annotation":"vectorize"},{"step":"pragma","stage":1,"iterator":0,"auto_unroll_max_step":512},{"step":"annotate","stage":3,"iterator":11,"annotation":"vectorize"},{"step":"fuse","stage":3,"iterators":[0,1,2,3,4,5]},{"step":"annotate","stage":3,"iterator":0,"annotation":"parallel"},{"step":"pragma","stage":3,"iterator":0,"auto_unroll_max_step":64}])json";

TEST(CpuCodegenGatherTest, StridedDepthwiseConvolutionScheduleRunsAndMatches) {
  const graph::Task task = graph::taskFromJson(nlohmann::json::parse(kTask), {});
  const std::vector<schedule::Step> steps =
      schedule::stepsFromJson(nlohmann::json::parse(kSchedule));
  Measurer measurer(testing::host(), {.runner = testing::quickRunnerOptions()});
  const std::vector<MeasureResult> results = measurer.measure({{task, steps}});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_TRUE(results[0].ok()) << results[0].error << ": " << results[0].errorDetail;
}

} // namespace
} // namespace clustune::measure
