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

// A build process and the candidate it is building, if any.
struct BuildProcess {
  pid_t pid = -1;
  int fd = -1; // the parent's end of the socket pair to the child
  bool busy = false;
  std::size_t index = 0;
  SteadyClock::time_point start = {};
  SteadyClock::time_point deadline = {};
  std::string received = {};
};

// In the child: build each candidate whose index arrives, answer with its BuildResult, and exit
// when the parent closes the socket, without running the parent's exit handlers or flushing its
// stdio buffers (both belong to the parent).
[[noreturn]] void serveBuilds(const std::vector<MeasureInput>& inputs, const BuildTarget& target,
                              int fd) {
  std::string request;
  try {
    while (readFrame(fd, request) == FrameStatus::Ok) {
      std::uint64_t index = 0;
      if (request.size() != sizeof index)
        ::_exit(2);
      std::memcpy(&index, request.data(), sizeof index);
      if (index >= inputs.size() || !writeFrame(fd, encode(buildCandidate(inputs[index], target))))
        ::_exit(2);
    }
  } catch (...) {
    ::_exit(2);
  }
  ::_exit(0);
}

// `siblings` are the parent's ends of the other children's sockets: the new child closes its
// copies, or a sibling would never see the end of file that tells it to exit.
BuildProcess startProcess(const std::vector<MeasureInput>& inputs, const BuildTarget& target,
                          const std::vector<int>& siblings) {
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
    for (int fd : siblings)
      ::close(fd);
    serveBuilds(inputs, target, ends[1]);
  }
  ::close(ends[1]);
  return {.pid = pid, .fd = ends[0]};
}

void reap(pid_t pid) {
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
}

BuildResult failed(const char* error, std::string detail, double seconds) {
  BuildResult result;
  result.error = error;
  result.errorDetail = std::move(detail);
  result.compileSeconds = seconds;
  return result;
}

// The frame received so far, once it is complete (WorkerProtocol.h).
std::optional<BuildResult> completeResult(BuildProcess& process) {
  std::uint64_t size = 0;
  if (process.received.size() < sizeof size)
    return std::nullopt;
  std::memcpy(&size, process.received.data(), sizeof size);
  if (process.received.size() - sizeof size < size)
    return std::nullopt;
  const std::string payload = process.received.substr(sizeof size, size);
  process.received.erase(0, sizeof size + size);
  try {
    return decodeBuildResult(payload);
  } catch (const Error& error) {
    return failed(errors::kCompile, error.what(), secondsSince(process.start));
  }
}

// The child closed its end before answering: reap it and say how it died.
BuildResult diedBuilding(BuildProcess& process) {
  ::close(process.fd);
  int status = 0;
  while (::waitpid(process.pid, &status, 0) < 0 && errno == EINTR) {
  }
  process.pid = -1;
  return failed(errors::kCompile, "the build process died: " + describeWaitStatus(status),
                secondsSince(process.start));
}

BuildResult timedOut(BuildProcess& process, double timeoutSeconds) {
  ::kill(process.pid, SIGKILL);
  ::close(process.fd);
  reap(process.pid);
  process.pid = -1;
  char limit[64];
  std::snprintf(limit, sizeof limit, "%g", timeoutSeconds);
  return failed(errors::kCompileTimeout,
                std::string("still compiling after the limit of ") + limit + " s; killed",
                secondsSince(process.start));
}

// Stops the processes still alive when the loop leaves, normally or by an exception: an idle
// child exits at the end of file, a busy one (only after an exception) is killed.
struct ProcessReaper {
  std::vector<BuildProcess>& processes;
  ~ProcessReaper() {
    for (BuildProcess& process : processes)
      if (process.pid > 0) {
        if (process.busy)
          ::kill(process.pid, SIGKILL);
        ::close(process.fd);
      }
    for (BuildProcess& process : processes)
      if (process.pid > 0)
        reap(process.pid);
  }
};

} // namespace

std::vector<BuildResult> buildInChildProcesses(const std::vector<MeasureInput>& inputs,
                                               const BuildTarget& target, int parallelism,
                                               double timeoutSeconds) {
  std::vector<BuildResult> results(inputs.size());
  const std::size_t slots =
      std::min(static_cast<std::size_t>(std::max(1, parallelism)), inputs.size());
  std::vector<BuildProcess> processes(slots);
  ProcessReaper reaper{processes};
  const auto limit = std::chrono::duration_cast<SteadyClock::duration>(
      std::chrono::duration<double>(timeoutSeconds));
  const std::vector<std::size_t> order = buildOrder(inputs);
  std::size_t next = 0, done = 0;
  std::vector<pollfd> polled;
  while (done < inputs.size()) {
    for (BuildProcess& process : processes) {
      if (process.busy || next >= inputs.size())
        continue;
      if (process.pid < 0) {
        std::vector<int> siblings;
        for (const BuildProcess& other : processes)
          if (other.pid > 0)
            siblings.push_back(other.fd);
        process = startProcess(inputs, target, siblings);
      }
      const std::uint64_t index = order[next++];
      std::string request(sizeof index, '\0');
      std::memcpy(request.data(), &index, sizeof index);
      process.busy = true;
      process.index = index;
      process.start = SteadyClock::now();
      process.deadline = process.start + limit;
      process.received.clear();
      // A child that died meanwhile shows as an end of file below.
      static_cast<void>(writeFrame(process.fd, request));
    }
    SteadyClock::time_point earliest = SteadyClock::time_point::max();
    polled.clear();
    for (const BuildProcess& process : processes) {
      polled.push_back({.fd = process.busy ? process.fd : -1, .events = POLLIN, .revents = 0});
      if (process.busy)
        earliest = std::min(earliest, process.deadline);
    }
    const auto wait =
        std::chrono::ceil<std::chrono::milliseconds>(earliest - SteadyClock::now()).count();
    if (::poll(polled.data(), polled.size(), static_cast<int>(std::max<std::int64_t>(0, wait))) <
            0 &&
        errno != EINTR)
      throw Error(std::string("cannot wait for build processes: ") + std::strerror(errno));
    for (std::size_t k = 0; k < processes.size(); ++k) {
      BuildProcess& process = processes[k];
      if (!process.busy)
        continue;
      std::optional<BuildResult> result;
      if (polled[k].revents != 0) {
        char buffer[65536];
        const ssize_t n = ::read(process.fd, buffer, sizeof buffer);
        if (n > 0) {
          process.received.append(buffer, static_cast<std::size_t>(n));
          result = completeResult(process);
        } else if (n == 0 || errno != EINTR) {
          result = diedBuilding(process);
        }
      }
      if (!result && SteadyClock::now() >= process.deadline)
        result = timedOut(process, timeoutSeconds);
      if (result) {
        results[process.index] = std::move(*result);
        process.busy = false;
        ++done;
      }
    }
  }
  return results;
}

} // namespace clustune::measure
