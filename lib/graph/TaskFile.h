// Reading tasks.jsonl (docs/formats.md), the partitioner's output that every later tool starts
// from. Each line is validated by taskFromJson; a key that appears twice is an error, since
// clustune-partition merges equal subgraphs into one line and a repeated key means files were
// concatenated by hand (merge them with clustune-partition instead).
#pragma once

#include "graph/Task.h"

#include <string>
#include <vector>

namespace clustune::graph {

// "-" reads stdin. Errors name the file and line.
std::vector<Task> readTaskFile(const std::string& path);

} // namespace clustune::graph
