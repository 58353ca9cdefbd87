// Memory for kernel operands, laid out the way generated code runs fastest on it: 64-byte
// aligned, so that no 512-bit vector access straddles two cache lines (malloc gives 16 bytes,
// and large mmap'ed blocks start 16 bytes past a page), and from 2 MiB up aligned to 2 MiB and
// advised onto transparent huge pages, since a large GEMM touches a new 4 KiB page with every
// row of its right operand (docs/performance.md measured +16% at 1024³). The measurement
// worker's buffers (runtime::AlignedBuffer) and every te::TensorData (the model executor's
// weights and inputs) allocate through it, so tuned and deployed kernels see the same memory.
#pragma once

#include <cstddef>
#include <new>

namespace clustune {

inline constexpr std::size_t kKernelAlignment = 64;
inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

// Uninitialised memory as described above; throws std::bad_alloc when memory runs out.
void* allocateKernelMemory(std::size_t bytes);
void freeKernelMemory(void* memory);

// A std::allocator for containers whose data kernels read.
template <class T>
struct KernelAllocator {
  using value_type = T;

  KernelAllocator() = default;
  template <class U>
  KernelAllocator(const KernelAllocator<U>&) {}

  T* allocate(std::size_t count) {
    return static_cast<T*>(allocateKernelMemory(count * sizeof(T)));
  }
  void deallocate(T* memory, std::size_t) { freeKernelMemory(memory); }

  template <class U>
  friend bool operator==(const KernelAllocator&, const KernelAllocator<U>&) {
    return true;
  }
};

} // namespace clustune
