// Training labels of the cost models (DESIGN §6, REFERENCES.md "Tenset"): a program's cost is the
// mean of its measured repeats, and its label is the task's normalised throughput, the fastest
// cost measured for the task divided by the program's cost, in (0, 1]. Labels of different
// tasks are then on one scale, which lets a batch mix tasks.
#pragma once

#include "measure/Record.h"

#include <map>
#include <string>
#include <vector>

namespace clustune::costmodel {

// The fastest mean cost per task over the valid records.
std::map<std::string, double> fastestCostPerTask(const std::vector<measure::Record>& records);

// fastest / cost for one program; cost and fastest must be positive.
double normalisedThroughput(double cost, double fastest);

} // namespace clustune::costmodel
