// Tests of support/AppendLog.h: one writer per log, a partial last line repaired on opening, and
// a write that does not fit undone, so that the lines already written stay as they were.
#include "support/AppendLog.h"

#include "support/Error.h"

#include <csignal>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace clustune {
namespace {

std::string temporaryPath(const std::string& name) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("clustune-" + name + "-" + std::to_string(::getpid()) + ".jsonl");
  std::filesystem::remove(path);
  return path.string();
}

std::string readAll(const std::string& path) {
  std::ifstream stream(path);
  std::stringstream text;
  text << stream.rdbuf();
  return text.str();
}

TEST(AppendLog, LinesAreAppendedWhole) {
  const std::string path = temporaryPath("append-log");
  {
    AppendLog log(path);
    log.append(R"({"a":1})");
  }
  AppendLog(path).append(R"({"a":2})");
  EXPECT_EQ(readAll(path), "{\"a\":1}\n{\"a\":2}\n");
  std::filesystem::remove(path);
}

TEST(AppendLog, ASecondWriterIsRefusedUntilTheFirstCloses) {
  const std::string path = temporaryPath("append-log-locked");
  {
    AppendLog first(path);
    first.append("{}");
    try {
      AppendLog second(path);
      FAIL() << "a second writer was let in";
    } catch (const Error& error) {
      EXPECT_EQ(error.context().file, path);
      EXPECT_NE(std::string(error.what()).find("another clustune run is writing to this log"),
                std::string::npos)
          << error.what();
    }
    first.append("{}");
  }
  EXPECT_NO_THROW(AppendLog second(path));
  EXPECT_EQ(readAll(path), "{}\n{}\n");
  std::filesystem::remove(path);
}

TEST(AppendLog, APartialLastLineIsRemovedOnOpening) {
  const std::string path = temporaryPath("append-log-partial");
  std::ofstream(path) << "{\"a\":1}\n{\"a\":";
  AppendLog log(path);
  EXPECT_TRUE(log.droppedPartialLine());
  log.append(R"({"a":2})");
  EXPECT_EQ(readAll(path), "{\"a\":1}\n{\"a\":2}\n");
  std::filesystem::remove(path);
}

// A build process forked while a log is open must not keep its lock: after a kill -9 of the
// tuner, such a child finishes its build, and the rerun was refused meanwhile.
TEST(AppendLog, AForkedChildDoesNotHoldTheLock) {
  const std::string path = temporaryPath("append-log-fork");
  int release[2], started[2];
  ASSERT_EQ(::pipe(release), 0);
  ASSERT_EQ(::pipe(started), 0);
  pid_t child = -1;
  {
    AppendLog log(path);
    child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      // Fork handlers have run once fork() returns here.
      char byte = 1;
      ::close(release[1]);
      const bool told = ::write(started[1], &byte, 1) == 1;
      ::_exit(told && ::read(release[0], &byte, 1) >= 0 ? 0 : 1); // lives until let go
    }
  }
  char byte = 0;
  ASSERT_EQ(::read(started[0], &byte, 1), 1);
  EXPECT_NO_THROW(AppendLog again(path));
  for (int fd : {release[0], release[1], started[0], started[1]})
    ::close(fd);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  std::filesystem::remove(path);
}

// A line that does not fit (here: past the file-size limit, as on a full disk) raises an error
// and leaves the log as it was, instead of ending it with a partial line.
TEST(AppendLog, AWriteThatDoesNotFitIsUndone) {
  const std::string path = temporaryPath("append-log-full");
  const std::string before = "{\"a\":1}\n";
  std::ofstream(path) << before;
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // In a child, so that the limit and the ignored signal stay out of the test process.
    std::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{.rlim_cur = before.size() + 16, .rlim_max = RLIM_INFINITY};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0)
      ::_exit(2);
    try {
      AppendLog log(path);
      log.append(std::string(100, 'x'));
    } catch (const Error& error) {
      ::_exit(std::string(error.what()).find("cannot write a line: File too large") !=
                      std::string::npos
                  ? 0
                  : 3);
    }
    ::_exit(4);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "2: no limit, 3: another error, 4: no error";
  EXPECT_EQ(readAll(path), before);
  std::filesystem::remove(path);
}

} // namespace
} // namespace clustune
