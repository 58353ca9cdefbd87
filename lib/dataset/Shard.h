// `--shard i/N`: a deterministic share of a task list, so that N machines (or N jobs of a Slurm
// array) measure disjoint tasks whose outputs concatenate into the dataset one run would give.
// Task t (0-based, in file order) belongs to shard t mod N: neighbouring tasks of one model,
// which tend to be alike in size, spread over the shards.
#pragma once

#include <cstddef>
#include <string>

namespace clustune::dataset {

struct Shard {
  int index = 0; // 0 <= index < count
  int count = 1;

  bool contains(std::size_t taskPosition) const {
    return static_cast<int>(taskPosition % static_cast<std::size_t>(count)) == index;
  }
};

// Parses "i/N"; throws clustune::Error for anything else (N < 1, i outside 0..N-1, junk).
Shard parseShard(const std::string& text);

} // namespace clustune::dataset
