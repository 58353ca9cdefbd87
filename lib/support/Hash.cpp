// See Hash.h.
#include "support/Hash.h"

#include <bit>
#include <cstring>

namespace clustune {

StableHasher& StableHasher::addBytes(const void* data, std::size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) {
    state_ ^= bytes[i];
    state_ *= 0x100000001b3ULL;
  }
  return *this;
}

StableHasher& StableHasher::add(std::int64_t value) {
  unsigned char bytes[8];
  auto bits = static_cast<std::uint64_t>(value);
  for (int i = 0; i < 8; ++i)
    bytes[i] = static_cast<unsigned char>(bits >> (8 * i));
  return addBytes(bytes, sizeof bytes);
}

StableHasher& StableHasher::add(double value) {
  if (value == 0.0)
    value = 0.0; // -0.0 and 0.0 hash alike
  return add(static_cast<std::int64_t>(std::bit_cast<std::uint64_t>(value)));
}

StableHasher& StableHasher::add(std::string_view text) {
  add(static_cast<std::int64_t>(text.size()));
  return addBytes(text.data(), text.size());
}

std::uint64_t StableHasher::finish() const {
  std::uint64_t z = state_ + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t stableHash(std::string_view text) {
  return StableHasher().add(text).finish();
}

std::string toHex(std::uint64_t value) {
  static const char digits[] = "0123456789abcdef";
  std::string text(16, '0');
  for (int i = 15; i >= 0; --i, value >>= 4)
    text[i] = digits[value & 0xf];
  return text;
}

} // namespace clustune
