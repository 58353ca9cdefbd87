// See AlignedMemory.h.
#include "support/AlignedMemory.h"

#include <cstdlib>
#include <sys/mman.h>

namespace clustune {

void* allocateKernelMemory(std::size_t bytes) {
  if (bytes == 0)
    return nullptr;
  const bool huge = bytes >= kHugePageBytes;
  const std::size_t alignment = huge ? kHugePageBytes : kKernelAlignment;
  // aligned_alloc wants a size that is a multiple of the alignment.
  const std::size_t allocated = (bytes + alignment - 1) / alignment * alignment;
  void* memory = std::aligned_alloc(alignment, allocated);
  if (!memory)
    throw std::bad_alloc();
  // Advice only: without transparent huge pages the memory works the same, on 4 KiB pages.
  if (huge)
    ::madvise(memory, allocated, MADV_HUGEPAGE);
  return memory;
}

void freeKernelMemory(void* memory) {
  std::free(memory);
}

} // namespace clustune
