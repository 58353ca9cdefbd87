// See MemoryPlan.h.
#include "executor/MemoryPlan.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace clustune::executor {
namespace {

constexpr std::int64_t kAlignment = 64;

std::int64_t alignUp(std::int64_t bytes) {
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

} // namespace

MemoryPlan planMemory(const std::vector<TensorLifetime>& tensors) {
  MemoryPlan plan;
  plan.offsets.assign(tensors.size(), 0);
  std::vector<std::size_t> order(tensors.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return tensors[a].firstStep < tensors[b].firstStep;
  });
  std::multimap<std::int64_t, std::int64_t> freeBlocks; // size -> offset
  // Blocks in use, released once the step after their last read begins.
  std::multimap<std::size_t, std::pair<std::int64_t, std::int64_t>>
      releaseAt; // step -> (offset, size)
  for (std::size_t index : order) {
    const TensorLifetime& tensor = tensors[index];
    for (auto it = releaseAt.begin(); it != releaseAt.end() && it->first < tensor.firstStep;) {
      freeBlocks.emplace(it->second.second, it->second.first);
      it = releaseAt.erase(it);
    }
    const std::int64_t size = alignUp(std::max<std::int64_t>(tensor.bytes, 1));
    plan.unsharedBytes += size;
    std::int64_t offset;
    if (auto fit = freeBlocks.lower_bound(size); fit != freeBlocks.end()) {
      offset = fit->second;
      const std::int64_t blockSize = fit->first;
      freeBlocks.erase(fit);
      if (blockSize > size) // keep the rest of the block available
        freeBlocks.emplace(blockSize - size, offset + size);
    } else {
      offset = plan.arenaBytes;
      plan.arenaBytes += size;
    }
    plan.offsets[index] = offset;
    releaseAt.emplace(tensor.lastStep, std::make_pair(offset, size));
  }
  return plan;
}

} // namespace clustune::executor
