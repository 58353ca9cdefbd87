// A direct interpreter of the loop-nest IR (te/Stmt.h): the executable meaning of a lowered
// function, independent of the LLVM code generator. Lowering is tested by running its output
// here and comparing with the tensor-expression reference; code generation can be tested
// against it on the same functions. Every loop kind runs serially, Allocate gives zeroed
// memory, float32 arithmetic is rounded to float32 after every operation as compiled code
// does, and every buffer access is bounds-checked.
#pragma once

#include "te/Stmt.h"
#include "te/TensorData.h"

#include <vector>

namespace clustune::schedule {

// `arguments` follow function.arguments (task inputs, then task outputs); each must have the
// buffer's dtype and element count. Throws clustune::Error on a mismatch, an out-of-bounds
// access, an integer division by zero or a construct that lowering should have removed.
void runLoweredFunction(const te::LoweredFunction& function,
                        std::vector<te::TensorData*> arguments);

} // namespace clustune::schedule
