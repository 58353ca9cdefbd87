// Tests of dataset/Shard.h: "i/N" parsing and the share each shard takes.
#include "dataset/Shard.h"

#include "support/Error.h"

#include <gtest/gtest.h>

namespace clustune::dataset {
namespace {

TEST(ShardTest, ParsesIndexAndCount) {
  const Shard shard = parseShard("2/5");
  EXPECT_EQ(shard.index, 2);
  EXPECT_EQ(shard.count, 5);
  EXPECT_EQ(parseShard("0/1").count, 1);
}

TEST(ShardTest, RefusesAnythingElse) {
  for (const char* text : {"", "3", "1/", "/2", "2/2", "-1/2", "1/0", "a/b", "1/2x", " 1/2"})
    EXPECT_THROW(parseShard(text), Error) << text;
}

TEST(ShardTest, EveryTaskBelongsToExactlyOneShard) {
  for (std::size_t task = 0; task < 20; ++task) {
    int owners = 0;
    for (int index = 0; index < 3; ++index)
      owners += Shard{.index = index, .count = 3}.contains(task) ? 1 : 0;
    EXPECT_EQ(owners, 1) << task;
  }
  EXPECT_TRUE(Shard{}.contains(7));
}

} // namespace
} // namespace clustune::dataset
