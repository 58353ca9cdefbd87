// JSONL reading names the file and line of a bad entry; outputs appear only on commit.
#include "support/Jsonl.h"

#include "support/Files.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

using namespace clustune;

namespace {

std::string writeTemporary(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  return path.string();
}

// The message of the Error that `read` throws, or "accepted".
template <class Read>
std::string message(Read read) {
  try {
    read();
  } catch (const Error& error) {
    return error.what();
  }
  return "accepted";
}

} // namespace

TEST(Jsonl, ReadsObjectsAndSkipsBlankLines) {
  const auto path = writeTemporary("clustune-jsonl-good.jsonl", "{\"a\":1}\n\n{\"a\":2}\n");
  JsonlReader reader(path);
  nlohmann::json entry;
  ASSERT_TRUE(reader.next(entry));
  EXPECT_EQ(entry["a"], 1);
  ASSERT_TRUE(reader.next(entry));
  EXPECT_EQ(entry["a"], 2);
  EXPECT_EQ(reader.lineNumber(), 3);
  EXPECT_FALSE(reader.next(entry));
}

TEST(Jsonl, BadLineNamesFileAndLine) {
  const auto path = writeTemporary("clustune-jsonl-bad.jsonl", "{\"a\":1}\n{\"a\":\n");
  JsonlReader reader(path);
  nlohmann::json entry;
  ASSERT_TRUE(reader.next(entry));
  try {
    reader.next(entry);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(error.context().file, path);
    EXPECT_EQ(error.context().line, 2);
    EXPECT_NE(std::string(error.what()).find(path + ":2: invalid JSON"), std::string::npos);
  }
}

// Found by fuzz-cluster_file (the same parse): a number too large for a double is an
// out_of_range exception of nlohmann's, which once escaped as "error: internal: ...".
TEST(Jsonl, ANumberBeyondDoubleIsInvalidJsonWithFileAndLine) {
  const auto path = writeTemporary("clustune-jsonl-overflow.jsonl", "{\"a\":1e999}\n");
  JsonlReader reader(path);
  nlohmann::json entry;
  try {
    reader.next(entry);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find(path + ":1: invalid JSON: number overflow"),
              std::string::npos)
        << error.what();
  }
}

// Python's json module writes float nan and inf as NaN and Infinity, which JSON lacks; a
// records.jsonl written by a script that way gets a message saying so.
TEST(Jsonl, NaNAndInfinityAreNamedAsNotJsonNumbers) {
  for (const std::string token : {"NaN", "Infinity", "-Infinity"}) {
    try {
      parseJsonText("{\"costs\":[0.5," + token + "]}", {.file = "records.jsonl", .line = 7});
      FAIL() << "expected an error for " << token;
    } catch (const Error& error) {
      EXPECT_NE(
          std::string(error.what())
              .find("records.jsonl:7: invalid JSON: " + token + " at byte 15 is not a JSON number"),
          std::string::npos)
          << error.what();
    }
  }
  try {
    parseJsonText("NaN", {});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("NaN at byte 1 is not a JSON number"),
              std::string::npos)
        << error.what();
  }
}

TEST(Jsonl, NonObjectIsRejected) {
  const auto path = writeTemporary("clustune-jsonl-array.jsonl", "[1,2]\n");
  JsonlReader reader(path);
  nlohmann::json entry;
  EXPECT_THROW(reader.next(entry), Error);
}

TEST(Jsonl, RequireFieldReportsMissingAndMistyped) {
  const nlohmann::json entry = {{"key", "abc"}, {"weight", "three"}};
  const ErrorContext context{.file = "tasks.jsonl", .line = 4};
  EXPECT_EQ(requireField<std::string>(entry, "key", context), "abc");
  try {
    requireField<int>(entry, "weight", context);
    FAIL();
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "tasks.jsonl:4: field 'weight' has the wrong type (string)");
  }
  EXPECT_THROW(requireField<int>(entry, "flops", context), Error);
}

// Found by fuzz-embedding_file: nlohmann casts a float to an integer without a range check, which
// is undefined behaviour for "v": 1.9e118; integers out of the field's range are refused too.
TEST(Jsonl, RequireFieldTakesOnlyIntegersInRangeForIntegerFields) {
  const nlohmann::json entry = nlohmann::json::parse(
      R"({"v":1.9e118,"k":2.5,"big":4294967296,"huge":18446744073709551615,"minus":-1})");
  const ErrorContext context{.file = "embeddings.jsonl", .line = 2};
  EXPECT_EQ(message([&] { requireField<int>(entry, "v", context); }),
            "embeddings.jsonl:2: field 'v' has the wrong type (number, not an integer)");
  EXPECT_EQ(message([&] { requireField<int>(entry, "k", context); }),
            "embeddings.jsonl:2: field 'k' has the wrong type (number, not an integer)");
  EXPECT_EQ(message([&] { requireField<int>(entry, "big", context); }),
            "embeddings.jsonl:2: field 'big' is out of range (4294967296)");
  EXPECT_EQ(message([&] { requireField<std::int64_t>(entry, "huge", context); }),
            "embeddings.jsonl:2: field 'huge' is out of range (18446744073709551615)");
  EXPECT_EQ(message([&] { requireField<std::uint32_t>(entry, "minus", context); }),
            "embeddings.jsonl:2: field 'minus' is out of range (-1)");
  EXPECT_EQ(requireField<std::int64_t>(entry, "big", context), 4294967296);
  EXPECT_EQ(requireField<double>(entry, "v", context), 1.9e118);
}

// Found by fuzz-cluster_file (a map of cluster ids holding 2e97) and fuzz-embedding_file (an
// "anchor" that is an array): both escaped as nlohmann's cast or exception.
TEST(Jsonl, IntegerListsAndOptionalFieldsAreCheckedToo) {
  const nlohmann::json entry = nlohmann::json::parse(
      R"({"ids":[1,2e97],"ok":[1,2],"assign":{"a":1,"b":2e97},"anchor":[0.5],"name":"x"})");
  const ErrorContext context{.file = "clusters.json"};
  EXPECT_EQ(message([&] { requireField<std::vector<int>>(entry, "ids", context); }),
            "clusters.json: field 'ids' has the wrong type (number, not an integer)");
  EXPECT_EQ(requireField<std::vector<int>>(entry, "ok", context), (std::vector<int>{1, 2}));
  EXPECT_EQ(message([&] { requireField<std::map<std::string, int>>(entry, "assign", context); }),
            "clusters.json: field 'assign' has the wrong type (number, not an integer)");
  EXPECT_EQ(message([&] { optionalField<std::string>(entry, "anchor", "", context); }),
            "clusters.json: field 'anchor' has the wrong type (array)");
  EXPECT_EQ(optionalField<std::string>(entry, "name", "", context), "x");
  EXPECT_EQ(optionalField<std::string>(entry, "absent", "fallback", context), "fallback");
}

TEST(Files, OutputAppearsOnlyOnCommit) {
  const auto path = (std::filesystem::temp_directory_path() / "clustune-output.jsonl").string();
  std::filesystem::remove(path);
  {
    OutputFile output(path);
    output.stream() << "partial\n";
  } // destroyed without commit: nothing may be left behind
  EXPECT_FALSE(std::filesystem::exists(path));
  {
    OutputFile output(path);
    output.stream() << "done\n";
    output.commit();
  }
  EXPECT_EQ(readFileBytes(path), "done\n");
}

TEST(Files, MissingFileNamesIt) {
  try {
    readFileBytes("/nonexistent/model.onnx");
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.context().file, "/nonexistent/model.onnx");
  }
}

TEST(Files, DevicesAreWrittenInPlaceNotReplaced) {
  {
    OutputFile output("/dev/null");
    output.stream() << "discarded\n";
    output.commit();
  }
  EXPECT_TRUE(std::filesystem::is_character_file("/dev/null"));
}
