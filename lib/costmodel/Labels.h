// Training labels of the cost models (DESIGN §6, REFERENCES.md "Tenset"): a program's cost is the
// mean of its measured repeats, and its label is the task's normalised throughput, the fastest
// cost measured for the task (on the same target) divided by the program's cost, in (0, 1].
// Labels of different tasks and machines are then on one scale, which lets a batch mix them.
#pragma once

namespace clustune::costmodel {

// fastest / cost for one program; cost and fastest must be positive.
double normalisedThroughput(double cost, double fastest);

} // namespace clustune::costmodel
