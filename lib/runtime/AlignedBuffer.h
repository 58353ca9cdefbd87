// Memory for kernel operands, laid out the way generated code runs fastest on it: 64-byte
// aligned, so that no 512-bit vector access straddles two cache lines (malloc gives 16 bytes,
// and large mmap'ed blocks start 16 bytes past a page), and from 2 MiB up aligned to 2 MiB and
// advised onto transparent huge pages, since a large GEMM touches a new 4 KiB page with every
// row of its right operand (docs/performance.md measured +16% at 1024³). The measurement
// worker and the model executor both allocate through it, so tuned and deployed kernels see
// the same memory. Contents start zeroed.
#pragma once

#include <cstddef>

namespace clustune::runtime {

class AlignedBuffer {
public:
  static constexpr std::size_t kAlignment = 64;
  static constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

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
