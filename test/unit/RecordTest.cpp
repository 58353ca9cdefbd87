// Tests of measure/Record.h and measure/RecordLog.h: the records.jsonl form round-trips, bad
// entries are refused with their line, and an appender survives a line cut short by a kill.
#include "measure/RecordLog.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

namespace clustune::measure {
namespace {

Record validRecord() {
  return Record{
      .task = "0123456789abcdef",
      .target = "llvm -mcpu=znver5 -threads=2",
      .schedule = {schedule::SplitStep{.stage = 1, .iterator = 0, .factors = {4, 8}},
                   schedule::AnnotationStep{
                       .stage = 1, .iterator = 0, .annotation = schedule::Annotation::Parallel}},
      .costs = {1.5e-3, 1.25e-3},
      .compileSeconds = 0.0421,
      .sampleSeed = 77,
      .sampleIndex = 3};
}

Record parse(const std::string& line) {
  return recordFromJson(nlohmann::json::parse(line), {.file = "records.jsonl", .line = 4});
}

std::string errorOf(const std::string& line) {
  try {
    parse(line);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

std::string temporaryPath(const std::string& name) {
  const auto path =
      std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()) + ".jsonl");
  std::filesystem::remove(path);
  return path.string();
}

std::string readAll(const std::string& path) {
  std::ifstream stream(path);
  std::stringstream text;
  text << stream.rdbuf();
  return text.str();
}

TEST(RecordTest, RoundTripsThroughJson) {
  const Record record = validRecord();
  const std::string line = recordToJson(record).dump();
  const Record back = parse(line);
  EXPECT_EQ(back.task, record.task);
  EXPECT_EQ(back.target, record.target);
  EXPECT_EQ(back.schedule, record.schedule);
  EXPECT_EQ(back.costs, record.costs);
  EXPECT_TRUE(back.ok());
  EXPECT_EQ(back.sampleSeed, 77u);
  EXPECT_EQ(back.sampleIndex, 3);
  EXPECT_EQ(recordToJson(back).dump(), line);
  EXPECT_DOUBLE_EQ(back.meanCost(), 1.375e-3);
}

TEST(RecordTest, FieldsComeInTheDocumentedOrder) {
  const std::string line = recordToJson(validRecord()).dump();
  EXPECT_EQ(line.rfind(R"({"v":1,"task":"0123456789abcdef","target":)", 0), 0u) << line;
  EXPECT_NE(line.find(R"("costs":[0.0015,0.00125],"error":null,"error_detail":null,)"),
            std::string::npos)
      << line;
}

TEST(RecordTest, AnErrorRecordKeepsItsKindAndDetail) {
  Record record = validRecord();
  record.costs.clear();
  record.error = errors::kTimeout;
  record.errorDetail = "killed after 10 s";
  const Record back = parse(recordToJson(record).dump());
  EXPECT_FALSE(back.ok());
  EXPECT_EQ(back.error, "timeout");
  EXPECT_EQ(back.errorDetail, "killed after 10 s");
}

TEST(RecordTest, EveryErrorKindTheMeasurerWritesReadsBack) {
  for (const std::string kind : {"compile", "compile_timeout", "timeout", "crash", "wrong_result",
                                 "invalid_schedule", "runtime"}) {
    Record record = validRecord();
    record.costs.clear();
    record.error = kind;
    EXPECT_EQ(parse(recordToJson(record).dump()).error, kind);
  }
  EXPECT_EQ(std::size(errors::kAll), 7u) << "a new error kind needs a case above";
}

TEST(RecordTest, TheMinimalTuningLogFormIsAccepted) {
  const Record record =
      parse(R"({"v":1,"task":"0123456789abcdef","schedule":[],"costs":[0.5],"error":null})");
  EXPECT_TRUE(record.ok());
  EXPECT_EQ(record.sampleIndex, -1);
}

TEST(RecordTest, TuningFieldsRoundTripAndAppearOnlyOnTuningRecords) {
  EXPECT_EQ(recordToJson(validRecord()).dump().find("tune_round"), std::string::npos);
  Record record = validRecord();
  record.tuneRound = 12;
  record.tuneSeconds = 95.1234;
  const std::string line = recordToJson(record).dump();
  EXPECT_NE(line.find(R"("sample_index":3,"tune_round":12,"tune_seconds":95.123})"),
            std::string::npos)
      << line;
  const Record back = parse(line);
  EXPECT_EQ(back.tuneRound, 12);
  EXPECT_DOUBLE_EQ(back.tuneSeconds, 95.123);
  EXPECT_EQ(parse(recordToJson(validRecord()).dump()).tuneRound, -1);
  EXPECT_NE(errorOf(R"({"v":1,"task":"0123456789abcdef","schedule":[],"costs":[1],)"
                    R"("tune_round":-2,"tune_seconds":1})")
                .find("non-negative"),
            std::string::npos);
}

TEST(RecordTest, BadEntriesAreRefusedWithTheirLine) {
  const std::string base = R"("task":"0123456789abcdef","schedule":[])";
  EXPECT_NE(errorOf(R"({"v":2,)" + base + R"(,"costs":[1]})").find("version"), std::string::npos);
  EXPECT_NE(errorOf(R"({"v":1,"schedule":[],"costs":[1]})").find("'task'"), std::string::npos);
  EXPECT_NE(errorOf(R"({"v":1,)" + base + R"(,"costs":[-1]})").find("non-positive"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"v":1,)" + base + R"(,"costs":[],"error":"melted"})").find("melted"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"v":1,)" + base + R"(,"costs":[1],"error":"crash"})").find("has costs"),
            std::string::npos);
  const std::string badSchedule =
      errorOf(R"({"v":1,"task":"0123456789abcdef","schedule":[{"step":"twist"}],"costs":[1]})");
  EXPECT_NE(badSchedule.find("invalid schedule"), std::string::npos) << badSchedule;
  EXPECT_NE(badSchedule.find("records.jsonl:4"), std::string::npos) << badSchedule;
}

TEST(RecordTest, ScheduleTextIdentifiesEqualSchedules) {
  const Record record = validRecord();
  EXPECT_EQ(schedule::scheduleText(record.schedule),
            schedule::scheduleText(validRecord().schedule));
  EXPECT_NE(schedule::scheduleText(record.schedule), schedule::scheduleText({}));
}

TEST(RecordLogTest, AppendedRecordsReadBackInOrder) {
  const std::string path = temporaryPath("record-log");
  {
    RecordAppender appender(path);
    for (int i = 0; i < 3; ++i) {
      Record record = validRecord();
      record.sampleIndex = i;
      appender.append(record);
    }
  }
  { RecordAppender(path).append(validRecord()); } // reopening appends
  std::vector<int> indices;
  readRecords(path,
              [&](Record&& record, const ErrorContext&) { indices.push_back(record.sampleIndex); });
  EXPECT_EQ(indices, (std::vector<int>{0, 1, 2, 3}));
  std::filesystem::remove(path);
}

TEST(RecordLogTest, APartialLastLineIsRemovedWhenTheLogIsReopened) {
  const std::string path = temporaryPath("record-log-partial");
  const std::string complete = recordToJson(validRecord()).dump() + "\n";
  {
    std::ofstream stream(path);
    stream << complete << complete << complete.substr(0, 25); // a write cut short by kill -9
  }
  {
    RecordAppender appender(path);
    EXPECT_TRUE(appender.droppedPartialLine());
    EXPECT_EQ(readAll(path), complete + complete);
    appender.append(validRecord());
    EXPECT_EQ(readAll(path), complete + complete + complete);
  }
  EXPECT_FALSE(RecordAppender(path).droppedPartialLine());
  std::filesystem::remove(path);
}

TEST(RecordLogTest, AFileOfOnePartialLineBecomesEmpty) {
  const std::string path = temporaryPath("record-log-only-partial");
  { std::ofstream(path) << R"({"v":1,"ta)"; }
  EXPECT_TRUE(RecordAppender(path).droppedPartialLine());
  EXPECT_EQ(readAll(path), "");
  std::filesystem::remove(path);
}

TEST(RecordLogTest, AMalformedLineNamesFileAndLine) {
  const std::string path = temporaryPath("record-log-malformed");
  {
    std::ofstream stream(path);
    stream << recordToJson(validRecord()).dump() << "\n"
           << R"({"v":1,"task":"x"})"
           << "\n";
  }
  try {
    readRecords(path, [](Record&&, const ErrorContext&) {});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find(path + ":2"), std::string::npos) << error.what();
  }
  std::filesystem::remove(path);
}

// Lines are parsed in blocks on every thread; a bad line past the first block must still be
// reported at its own line, after every record before it was visited in order.
TEST(RecordLogTest, ABadLineFarIntoALongLogIsReportedAtItsLineAfterTheRecordsBeforeIt) {
  const std::string path = temporaryPath("record-log-long");
  {
    std::ofstream stream(path);
    for (int i = 0; i < 9000; ++i) {
      Record record = validRecord();
      record.sampleIndex = i;
      stream << recordToJson(record).dump() << "\n";
      if (i == 4500)
        stream << "\n"; // a blank line counts for the line numbers
    }
    stream << "{\"v\":1}\n";
  }
  std::vector<int> indices;
  std::string message;
  try {
    readRecords(
        path, [&](Record&& record, const ErrorContext&) { indices.push_back(record.sampleIndex); });
  } catch (const Error& error) {
    message = error.what();
  }
  ASSERT_EQ(indices.size(), 9000u);
  for (int i = 0; i < 9000; ++i)
    ASSERT_EQ(indices[static_cast<std::size_t>(i)], i);
  EXPECT_NE(message.find(":9002"), std::string::npos) << message;
  std::filesystem::remove(path);
}

} // namespace
} // namespace clustune::measure
