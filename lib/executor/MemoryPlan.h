// Static memory planning for the graph executor: every intermediate tensor of a model gets an
// offset in one arena, and tensors whose lifetimes do not overlap share memory (best-fit reuse
// of released blocks). The plan is made once per model, so running it allocates nothing.
#pragma once

#include <cstdint>
#include <vector>

namespace clustune::executor {

struct TensorLifetime {
  std::int64_t bytes = 0;
  std::size_t firstStep = 0; // produced by this step
  std::size_t lastStep = 0;  // last read at this step (a graph output: the final step)
};

struct MemoryPlan {
  std::vector<std::int64_t> offsets; // per tensor, in the order given
  std::int64_t arenaBytes = 0;
  std::int64_t unsharedBytes = 0; // what one buffer per tensor would need
};

// Offsets are aligned to 64 bytes (a cache line, and AVX-512 loads). A tensor's block is free
// for reuse from the step after its last read; a tensor never shares memory with one that is
// still live, including its own step's inputs.
MemoryPlan planMemory(const std::vector<TensorLifetime>& tensors);

} // namespace clustune::executor
