// See AlignedBuffer.h.
#include "runtime/AlignedBuffer.h"

#include "support/AlignedMemory.h"

#include <cstring>
#include <utility>

namespace clustune::runtime {

AlignedBuffer::AlignedBuffer(std::size_t bytes)
    : data_(static_cast<unsigned char*>(allocateKernelMemory(bytes))), size_(bytes) {
  if (data_)
    std::memset(data_, 0, bytes);
}

AlignedBuffer::~AlignedBuffer() {
  freeKernelMemory(data_);
}

AlignedBuffer::AlignedBuffer(AlignedBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

AlignedBuffer& AlignedBuffer::operator=(AlignedBuffer&& other) noexcept {
  if (this != &other) {
    freeKernelMemory(data_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

} // namespace clustune::runtime
