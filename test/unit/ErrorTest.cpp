// clustune::Error formats its context in a fixed order, and outer context fills gaps only.
#include "support/Error.h"

#include "support/Progress.h"

#include <gtest/gtest.h>

using namespace clustune;

TEST(Error, FormatsAllContext) {
  Error error("bad shape", {.file = "m.onnx", .line = 3, .node = "conv1", .task = "ab12"});
  EXPECT_STREQ(error.what(), "m.onnx:3: node 'conv1': task ab12: bad shape");
  EXPECT_EQ(error.message(), "bad shape");
}

TEST(Error, MessageAloneWithoutContext) {
  EXPECT_STREQ(Error("oops").what(), "oops");
}

TEST(Error, WithContextKeepsInnerDetails) {
  Error inner("unsupported", {.node = "det"});
  Error outer = inner.withContext({.file = "x.onnx", .node = "ignored"});
  EXPECT_STREQ(outer.what(), "x.onnx: node 'det': unsupported");
}

TEST(Progress, StatusLineCountsAndPercent) {
  Progress progress("tasks", 4, 1e9);
  progress.advance(1);
  progress.setDetail("errors 0%");
  const std::string line = progress.statusLine();
  EXPECT_NE(line.find("tasks 1/4  25%"), std::string::npos) << line;
  EXPECT_NE(line.find("errors 0%"), std::string::npos) << line;
}
