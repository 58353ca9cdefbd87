// See Runner.h.
#include "measure/Runner.h"

#include "measure/MeasureInput.h"
#include "measure/WorkerProtocol.h"
#include "support/Error.h"

#include <cassert>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace clustune::measure {
namespace {

// The descriptor number the worker finds its socket at.
constexpr int kWorkerFd = 3;
// How long a worker may take to start up and say hello (it maps LLVM, a large library).
constexpr double kStartupSeconds = 30;

std::chrono::steady_clock::time_point deadlineAfter(double seconds) {
  return std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(
             std::chrono::duration<double>(seconds));
}

std::string formatSeconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", seconds);
  return text;
}

} // namespace

std::string Runner::defaultWorkerPath() {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error)
    throw Error("cannot locate the running executable to find clustune-worker beside it: " +
                error.message());
  return (self.parent_path() / "clustune-worker").string();
}

Runner::Runner(RunnerOptions options) : options_(std::move(options)) {
  if (!(options_.timeoutSeconds > 0))
    throw Error("the measurement timeout must be positive, got " +
                std::to_string(options_.timeoutSeconds));
  workerPath_ = options_.workerPath.empty() ? defaultWorkerPath() : options_.workerPath;
}

Runner::~Runner() {
  if (pid_ > 0)
    stopWorker(false);
}

void Runner::startWorker() {
  assert(pid_ < 0 && fd_ < 0);
  if (::access(workerPath_.c_str(), X_OK) != 0)
    throw Error("cannot run the measurement worker " + workerPath_ + ": " + std::strerror(errno) +
                " (build the clustune-worker target, or give the worker's path)");
  int sockets[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0)
    throw Error(std::string("cannot create the measurement worker's socket: ") +
                std::strerror(errno));
  // The child's end is moved above kWorkerFd so that dup2 onto kWorkerFd always makes a fresh,
  // inheritable copy; every other descriptor is close-on-exec and stays out of the worker.
  const int childEnd = ::fcntl(sockets[1], F_DUPFD_CLOEXEC, kWorkerFd + 1);
  ::close(sockets[1]);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, childEnd, kWorkerFd);
  // stdout belongs to the caller's JSON output; nothing a kernel or LLVM prints may land there.
  // stderr stays shared, for the worker's own diagnostics.
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  const std::string fdText = std::to_string(kWorkerFd);
  const std::string parentText = std::to_string(::getpid());
  std::vector<char*> argv{workerPath_.data(),
                          const_cast<char*>("--fd"),
                          const_cast<char*>(fdText.c_str()),
                          const_cast<char*>("--parent"),
                          const_cast<char*>(parentText.c_str()),
                          nullptr};
  pid_t pid = -1;
  const int spawned =
      ::posix_spawn(&pid, workerPath_.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(childEnd);
  if (spawned != 0) {
    ::close(sockets[0]);
    throw Error("cannot start the measurement worker " + workerPath_ + ": " +
                std::strerror(spawned));
  }
  pid_ = pid;
  fd_ = sockets[0];
  ++workerStarts_;

  std::string payload;
  const FrameStatus status = readFrame(fd_, payload, deadlineAfter(kStartupSeconds));
  std::string problem;
  if (status == FrameStatus::Ok) {
    try {
      const WorkerHello hello = decodeHello(payload);
      if (hello.version != kWorkerProtocolVersion)
        problem = "it speaks protocol version " + std::to_string(hello.version) + ", expected " +
                  std::to_string(kWorkerProtocolVersion) + " (a stale build?)";
    } catch (const Error& error) {
      problem = error.message();
    }
  } else {
    problem = status == FrameStatus::TimedOut
                  ? "it did not answer within " + formatSeconds(kStartupSeconds)
                  : "it stopped";
  }
  if (!problem.empty()) {
    const int waitStatus = stopWorker(true);
    throw Error("the measurement worker " + workerPath_ + " did not start: " + problem + " (" +
                describeWaitStatus(waitStatus) + ")");
  }
}

int Runner::stopWorker(bool killNow) {
  assert(pid_ > 0);
  if (killNow)
    ::kill(pid_, SIGKILL);
  if (fd_ >= 0)
    ::close(fd_); // a healthy worker sees end-of-file and exits
  fd_ = -1;
  int status = 0;
  const auto graceEnd = deadlineAfter(1.0);
  for (;;) {
    const pid_t reaped = ::waitpid(pid_, &status, killNow ? 0 : WNOHANG);
    if (reaped == pid_ || (reaped < 0 && errno != EINTR))
      break;
    if (reaped == 0 && std::chrono::steady_clock::now() >= graceEnd) {
      ::kill(pid_, SIGKILL);
      killNow = true;
    } else if (reaped == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  pid_ = -1;
  return status;
}

RunOutcome Runner::workerDied() {
  // The socket closed because the process is ending; its status says why.
  const int status = stopWorker(false);
  return RunOutcome{.error = errors::kCrash,
                    .errorDetail = "the worker died: " + describeWaitStatus(status)};
}

RunOutcome Runner::run(const BuildResult& built, bool returnOutputs) {
  assert(built.ok());
  return runWith(built.objectBytes, built.gpu, built.functionName, built.arguments, returnOutputs,
                 options_.timing, options_.timeoutSeconds);
}

RunOutcome Runner::run(const BuildResult& built, bool returnOutputs, const TimingOptions& timing,
                       double timeoutSeconds) {
  assert(built.ok());
  return runWith(built.objectBytes, built.gpu, built.functionName, built.arguments, returnOutputs,
                 timing, timeoutSeconds);
}

RunOutcome Runner::runObject(const std::string& objectBytes, const std::string& functionName,
                             const std::vector<ArgumentSpec>& arguments, bool returnOutputs) {
  return runWith(objectBytes, {}, functionName, arguments, returnOutputs, options_.timing,
                 options_.timeoutSeconds);
}

RunOutcome Runner::runWith(const std::string& objectBytes, const codegen::CudaModule& gpu,
                           const std::string& functionName,
                           const std::vector<ArgumentSpec>& arguments, bool returnOutputs,
                           const TimingOptions& timing, double timeoutSeconds) {
  if (pid_ < 0)
    startWorker();
  const RunRequest request{.objectBytes = objectBytes,
                           .gpu = gpu,
                           .functionName = functionName,
                           .arguments = arguments,
                           .timing = timing,
                           .seed = options_.seed,
                           .threads = options_.threads,
                           .returnOutputs = returnOutputs};
  if (!writeFrame(fd_, encode(request)))
    return workerDied();
  std::string payload;
  switch (readFrame(fd_, payload, deadlineAfter(timeoutSeconds))) {
  case FrameStatus::Ok:
    break;
  case FrameStatus::Closed:
    return workerDied();
  case FrameStatus::TimedOut:
    stopWorker(true);
    return RunOutcome{.error = errors::kTimeout,
                      .errorDetail = "no result within " + formatSeconds(timeoutSeconds) +
                                     "; the worker was killed"};
  }

  RunResponse response;
  try {
    response = decodeRunResponse(payload);
  } catch (const Error& error) {
    // A worker that sends garbage cannot be trusted with the next candidate either.
    stopWorker(true);
    return RunOutcome{.error = errors::kRuntime, .errorDetail = error.message()};
  }
  if (response.workerSpent)
    stopWorker(false);
  RunOutcome outcome{.costs = std::move(response.costs),
                     .error = std::move(response.error),
                     .errorDetail = std::move(response.errorDetail)};
  if (!outcome.ok() || !returnOutputs)
    return outcome;
  std::size_t next = 0;
  for (const ArgumentSpec& spec : arguments) {
    if (!spec.isOutput)
      continue;
    te::TensorData output(spec.dtype, spec.shape);
    if (next >= response.outputBytes.size() ||
        response.outputBytes[next].size() != output.byteSize())
      return RunOutcome{.error = errors::kRuntime,
                        .errorDetail = "the worker returned outputs that do not match the kernel's "
                                       "output arguments"};
    std::memcpy(output.data(), response.outputBytes[next].data(), output.byteSize());
    outcome.outputs.push_back(std::move(output));
    ++next;
  }
  return outcome;
}

} // namespace clustune::measure
