// Tests of runtime/AlignedBuffer.h: alignment by size, zeroed contents, moves.
#include "runtime/AlignedBuffer.h"

#include <cstdint>
#include <gtest/gtest.h>

namespace clustune::runtime {
namespace {

std::uintptr_t address(const AlignedBuffer& buffer) {
  return reinterpret_cast<std::uintptr_t>(buffer.data());
}

TEST(AlignedBufferTest, SmallBuffersAreCacheLineAligned) {
  for (std::size_t bytes : {1u, 60u, 4100u, 100000u}) {
    const AlignedBuffer buffer(bytes);
    EXPECT_EQ(buffer.size(), bytes);
    EXPECT_EQ(address(buffer) % AlignedBuffer::kAlignment, 0u) << bytes;
  }
}

TEST(AlignedBufferTest, LargeBuffersStartOnAHugePage) {
  const AlignedBuffer buffer(AlignedBuffer::kHugePageBytes * 2 + 12);
  EXPECT_EQ(address(buffer) % AlignedBuffer::kHugePageBytes, 0u);
}

TEST(AlignedBufferTest, ContentsStartZeroed) {
  const AlignedBuffer buffer(AlignedBuffer::kHugePageBytes + 3);
  for (std::size_t i = 0; i < buffer.size(); i += 4093)
    EXPECT_EQ(buffer.data()[i], 0) << i;
  EXPECT_EQ(buffer.data()[buffer.size() - 1], 0);
}

TEST(AlignedBufferTest, MovesTransferOwnership) {
  AlignedBuffer first(128);
  first.data()[5] = 42;
  AlignedBuffer second(std::move(first));
  EXPECT_EQ(second.data()[5], 42);
  EXPECT_EQ(first.data(), nullptr);
  EXPECT_EQ(first.size(), 0u);
  AlignedBuffer third;
  third = std::move(second);
  EXPECT_EQ(third.size(), 128u);
  EXPECT_EQ(third.data()[5], 42);
  EXPECT_EQ(AlignedBuffer(0).data(), nullptr);
}

} // namespace
} // namespace clustune::runtime
