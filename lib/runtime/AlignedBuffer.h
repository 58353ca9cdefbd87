// An owned, zeroed block of kernel memory (support/AlignedMemory.h: 64-byte aligned, huge pages
// from 2 MiB): the measurement worker's operands and the model executor's arena.
#pragma once

#include "support/AlignedMemory.h"

#include <cstddef>

namespace clustune::runtime {

class AlignedBuffer {
public:
  static constexpr std::size_t kAlignment = kKernelAlignment;
  static constexpr std::size_t kHugePageBytes = clustune::kHugePageBytes;

  AlignedBuffer() = default;
  explicit AlignedBuffer(std::size_t bytes); // throws std::bad_alloc when memory runs out
  ~AlignedBuffer();
  AlignedBuffer(AlignedBuffer&& other) noexcept;
  AlignedBuffer& operator=(AlignedBuffer&& other) noexcept;
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;

  unsigned char* data() { return data_; }
  const unsigned char* data() const { return data_; }
  std::size_t size() const { return size_; }

private:
  unsigned char* data_ = nullptr;
  std::size_t size_ = 0;
};

} // namespace clustune::runtime
