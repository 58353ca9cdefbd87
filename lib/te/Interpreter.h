// The reference interpreter of the tensor-expression IR: evaluates a Workload naively, one output
// element at a time, independently of schedules and code generation. Generated kernels are
// checked against it (DESIGN §5, correctness), so it favours being obviously right over being
// fast; each stage's expression is still compiled once into closures, so that real tasks (a
// resnet50 convolution) take seconds.
//
// Semantics, shared with the code generators: values are computed in double precision and
// rounded to the stage's dtype when stored (so float32 stages round like real kernels);
// float32 immediates are rounded to float32 first. Div is true division on floats and truncation
// on integers; FloorDiv/FloorMod round towards negative infinity; Cast to bool is (x != 0) and
// float-to-integer casts truncate; Round is half-to-even; comparisons and logic give 0 or 1.
// Select evaluates only the operand it chooses, so a lowering may guard a load with it (padding,
// concatenation); And/Or short-circuit likewise.
#pragma once

#include "te/Tensor.h"
#include "te/TensorData.h"

#include <vector>

namespace clustune::te {

// Evaluates every stage of `workload` and returns its outputs, in workload.outputs order.
// `inputs` holds one tensor per workload input, with the placeholder's shape and dtype; a
// mismatch throws clustune::Error naming the input. A load outside its tensor is a bug in a
// lowering: it asserts in debug builds and throws Error("out-of-bounds load of <tensor>...")
// in release builds.
std::vector<TensorData> evaluateWorkload(const Workload& workload,
                                         const std::vector<TensorData>& inputs);

} // namespace clustune::te
