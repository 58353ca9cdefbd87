// A stable 64-bit hash (FNV-1a over bytes, then a SplitMix64 finaliser for avalanche). Workload
// keys and dataset file names depend on it, so its output must never change between builds,
// compilers or platforms: it hashes explicit little-endian byte sequences, never object layouts.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace clustune {

class StableHasher {
public:
  StableHasher& addBytes(const void* data, std::size_t size);
  StableHasher& add(std::string_view text); // length-prefixed, so ("ab","c") != ("a","bc")
  StableHasher& add(std::int64_t value);
  StableHasher& add(double value);
  std::uint64_t finish() const;

private:
  std::uint64_t state_ = 0xcbf29ce484222325ULL;
};

std::uint64_t stableHash(std::string_view text);

// Lower-case, zero-padded, 16 hex digits.
std::string toHex(std::uint64_t value);

} // namespace clustune
