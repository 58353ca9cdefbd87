// clustune-bench's --batch and --compilers lists.
#include "bench/SweepSpec.h"
#include "support/Error.h"

#include <gtest/gtest.h>

using namespace clustune;
using namespace clustune::bench;

TEST(BenchSweepSpec, BatchListsAreIncreasingPositiveIntegers) {
  EXPECT_EQ(parseBatchList("1,2,4,8,16,32"), (std::vector<std::int64_t>{1, 2, 4, 8, 16, 32}));
  EXPECT_EQ(parseBatchList("3"), (std::vector<std::int64_t>{3}));
  for (const char* bad : {"", "0", "-1", "1,,2", "1,2,", "2,1", "1,1", "1.5", "x", "1, 2"})
    EXPECT_THROW(parseBatchList(bad), Error) << bad;
}

TEST(BenchSweepSpec, CompilersAreNamedOnceAndTunedNeedsALog) {
  const auto compilers = parseCompilers("default,tuned:run/log.jsonl,ort,torch,tvm");
  ASSERT_EQ(compilers.size(), 5u);
  EXPECT_EQ(compilers[0].kind, CompilerKind::Default);
  EXPECT_EQ(compilers[1].kind, CompilerKind::Tuned);
  EXPECT_EQ(compilers[1].logPath, "run/log.jsonl");
  EXPECT_EQ(compilers[1].name(), "tuned");
  EXPECT_TRUE(compilers[2].isPeer());
  EXPECT_TRUE(compilers[2].required);
  for (const char* bad :
       {"", "tuned", "tuned:", "default,default", "tuned:a,tuned:b", "onnxruntime", "ort,"})
    EXPECT_THROW(parseCompilers(bad), Error) << bad;
}

TEST(BenchSweepSpec, ClustuneCompilersTakeALayout) {
  const auto compilers =
      parseCompilers("default,default@NCHW16c,tuned@NCHW8c:run/a@b.jsonl,tuned:x@y.jsonl");
  ASSERT_EQ(compilers.size(), 4u);
  EXPECT_EQ(compilers[1].name(), "default@NCHW16c");
  EXPECT_EQ(compilers[1].channelBlock, 16);
  EXPECT_EQ(compilers[2].name(), "tuned@NCHW8c");
  EXPECT_EQ(compilers[2].logPath, "run/a@b.jsonl");
  EXPECT_EQ(compilers[3].name(), "tuned");
  EXPECT_EQ(compilers[3].logPath, "x@y.jsonl");
  for (const char* bad : {"default@NHWC", "ort@NCHW16c", "default@NCHW16c,default@NCHW16c",
                          "tuned@NCHW16c", "default@"})
    EXPECT_THROW(parseCompilers(bad), Error) << bad;
}

TEST(BenchSweepSpec, TheDefaultListHasOptionalPeers) {
  const auto compilers = defaultCompilers();
  ASSERT_EQ(compilers.size(), 4u);
  EXPECT_EQ(compilers[0].name(), "default");
  EXPECT_TRUE(compilers[0].required);
  for (std::size_t i = 1; i < compilers.size(); ++i) {
    EXPECT_TRUE(compilers[i].isPeer());
    EXPECT_FALSE(compilers[i].required);
  }
}
