// Lowers a tuning task (graph::Task, from the partitioner) to a tensor-expression Workload:
// one placeholder per task input, the compute stages of every node (built by the operator
// lowerings in te/topi/), and the task's outputs.
#pragma once

#include "graph/Task.h"
#include "te/Tensor.h"

namespace clustune::te {

// Throws clustune::Error naming the op and the task when an operator has no lowering.
Workload lowerTask(const graph::Task& task);

// Whether every node of the task has a lowering (no exception, for filtering).
bool canLower(const graph::Task& task);

} // namespace clustune::te
