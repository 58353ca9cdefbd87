// See AlignedBuffer.h.
#include "runtime/AlignedBuffer.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <sys/mman.h>
#include <utility>

namespace clustune::runtime {

AlignedBuffer::AlignedBuffer(std::size_t bytes) : size_(bytes) {
  if (bytes == 0)
    return;
  const bool huge = bytes >= kHugePageBytes;
  const std::size_t alignment = huge ? kHugePageBytes : kAlignment;
  // aligned_alloc wants a size that is a multiple of the alignment.
  const std::size_t allocated = (bytes + alignment - 1) / alignment * alignment;
  data_ = static_cast<unsigned char*>(std::aligned_alloc(alignment, allocated));
  if (!data_)
    throw std::bad_alloc();
  // Advice only: without transparent huge pages the buffer works the same, on 4 KiB pages.
  if (huge)
    ::madvise(data_, allocated, MADV_HUGEPAGE);
  std::memset(data_, 0, bytes);
}

AlignedBuffer::~AlignedBuffer() {
  std::free(data_);
}

AlignedBuffer::AlignedBuffer(AlignedBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

AlignedBuffer& AlignedBuffer::operator=(AlignedBuffer&& other) noexcept {
  if (this != &other) {
    std::free(data_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

} // namespace clustune::runtime
