// See IsolatedBuild.h.
#include "measure/IsolatedBuild.h"

#include "measure/WorkerProtocol.h"
#include "support/Error.h"
#include "support/Stopwatch.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace clustune::measure {
namespace {

using Clock = std::chrono::steady_clock;

struct ChildBuild {
  pid_t pid = -1;
  int fd = -1; // the parent's end of the socket pair to the child
  std::size_t index = 0;
  Clock::time_point start;
  Clock::time_point deadline;
  std::string received;
};

// In the child: build, send, exit without running the parent's exit handlers or flushing its
// stdio buffers (both belong to the parent).
[[noreturn]] void buildAndSend(const MeasureInput& input, const codegen::CpuTarget& target,
                               int fd) {
  bool sent = false;
  try {
    sent = writeFrame(fd, encode(buildCandidate(input, target)));
  } catch (...) {
  }
  ::_exit(sent ? 0 : 2);
}

ChildBuild startChild(const MeasureInput& input, const codegen::CpuTarget& target,
                      std::size_t index) {
  int ends[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0)
    throw Error(std::string("cannot create a socket pair for a build process: ") +
                std::strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int error = errno;
    ::close(ends[0]);
    ::close(ends[1]);
    throw Error(std::string("cannot start a build process: ") + std::strerror(error));
  }
  if (pid == 0) {
    ::close(ends[0]);
    buildAndSend(input, target, ends[1]);
  }
  ::close(ends[1]);
  const Clock::time_point now = Clock::now();
  return {.pid = pid, .fd = ends[0], .index = index, .start = now, .deadline = now, .received = {}};
}

BuildResult failed(const char* error, std::string detail, double seconds) {
  BuildResult result;
  result.error = error;
  result.errorDetail = std::move(detail);
  result.compileSeconds = seconds;
  return result;
}

// The child closed its end: reap it and decode the frame it sent (WorkerProtocol.h).
BuildResult finishChild(ChildBuild& child) {
  ::close(child.fd);
  int status = 0;
  while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return failed(errors::kCompile, "the build process died: " + describeWaitStatus(status),
                  secondsSince(child.start));
  std::uint64_t size = 0;
  if (child.received.size() >= sizeof size)
    std::memcpy(&size, child.received.data(), sizeof size);
  if (child.received.size() < sizeof size || child.received.size() - sizeof size != size)
    return failed(errors::kCompile, "the build process sent an incomplete result",
                  secondsSince(child.start));
  try {
    return decodeBuildResult(child.received.substr(sizeof size));
  } catch (const Error& error) {
    return failed(errors::kCompile, error.what(), secondsSince(child.start));
  }
}

BuildResult killChild(ChildBuild& child, double timeoutSeconds) {
  ::kill(child.pid, SIGKILL);
  ::close(child.fd);
  while (::waitpid(child.pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  char limit[64];
  std::snprintf(limit, sizeof limit, "%g", timeoutSeconds);
  return failed(errors::kCompileTimeout,
                std::string("still compiling after the limit of ") + limit + " s; killed",
                secondsSince(child.start));
}

// Kills the children still running when the loop leaves by an exception.
struct ChildReaper {
  std::vector<ChildBuild>& children;
  ~ChildReaper() {
    for (ChildBuild& child : children) {
      ::kill(child.pid, SIGKILL);
      ::close(child.fd);
      ::waitpid(child.pid, nullptr, 0);
    }
  }
};

} // namespace

std::vector<BuildResult> buildInChildProcesses(const std::vector<MeasureInput>& inputs,
                                               const codegen::CpuTarget& target, int parallelism,
                                               double timeoutSeconds) {
  std::vector<BuildResult> results(inputs.size());
  std::vector<ChildBuild> running;
  ChildReaper reaper{running};
  const auto limit =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeoutSeconds));
  const std::size_t slots = static_cast<std::size_t>(std::max(1, parallelism));
  std::size_t next = 0;
  std::vector<pollfd> polled;
  while (next < inputs.size() || !running.empty()) {
    while (running.size() < slots && next < inputs.size()) {
      running.push_back(startChild(inputs[next], target, next));
      running.back().deadline = running.back().start + limit;
      ++next;
    }
    Clock::time_point earliest = running.front().deadline;
    polled.clear();
    for (const ChildBuild& child : running) {
      polled.push_back({.fd = child.fd, .events = POLLIN, .revents = 0});
      earliest = std::min(earliest, child.deadline);
    }
    const auto wait = std::chrono::ceil<std::chrono::milliseconds>(earliest - Clock::now()).count();
    if (::poll(polled.data(), polled.size(), static_cast<int>(std::max<std::int64_t>(0, wait))) <
            0 &&
        errno != EINTR)
      throw Error(std::string("cannot wait for build processes: ") + std::strerror(errno));
    // Walk backwards so that finished children can be erased in place.
    for (std::size_t k = running.size(); k-- > 0;) {
      ChildBuild& child = running[k];
      bool done = false;
      if (polled[k].revents != 0) {
        char buffer[65536];
        const ssize_t n = ::read(child.fd, buffer, sizeof buffer);
        if (n > 0)
          child.received.append(buffer, static_cast<std::size_t>(n));
        else if (n == 0 || errno != EINTR) {
          results[child.index] = finishChild(child);
          done = true;
        }
      }
      if (!done && Clock::now() >= child.deadline) {
        results[child.index] = killChild(child, timeoutSeconds);
        done = true;
      }
      if (done)
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
    }
  }
  return results;
}

} // namespace clustune::measure
