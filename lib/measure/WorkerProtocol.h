// The messages between the Runner (parent) and the clustune-worker process, and how they travel:
// each message is one frame, an 8-byte length followed by that many bytes, over a Unix stream
// socket pair (a bidirectional pipe). Numbers are written in the machine's byte order, because
// both ends are the same build on the same machine; the hello message carries a protocol
// version so that a stale worker binary is refused instead of misread.
//
// Conversation: the worker sends Hello once it is ready, then answers every RunRequest with one
// RunResponse, until the parent closes its end. A build process (IsolatedBuild.h) sends one
// encoded BuildResult and exits.
#pragma once

#include "measure/Builder.h"
#include "measure/SeededInputs.h"
#include "measure/Timing.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace clustune::measure {

inline constexpr std::uint32_t kWorkerProtocolVersion = 5;

struct WorkerHello {
  std::uint32_t version = kWorkerProtocolVersion;
  std::int64_t pid = 0;
};

struct RunRequest {
  std::string objectBytes = {};  // an ELF object from codegen::compileToObject, or
  codegen::CudaModule gpu = {};  // PTX from codegen::compileToPtx, run on the worker's GPU
  std::string functionName = {}; // the kernel symbol in the object
  std::vector<ArgumentSpec> arguments = {};
  TimingOptions timing;
  std::uint64_t seed = 0; // for generateInputs
  int threads = 0;        // the worker's thread-pool size; 0 keeps the worker's default
  bool returnOutputs = false;
};

struct RunResponse {
  std::string error = {}; // "" or errors::kRuntime: the kernel could not be loaded or run
  std::string errorDetail = {};
  std::vector<double> costs = {};
  std::vector<std::string> outputBytes = {}; // raw TensorData bytes, one per output argument
  // The worker cannot run another candidate (a GPU fault lost its CUDA context for good): the
  // Runner lets it exit and starts a fresh one for the next.
  bool workerSpent = false;
};

std::string encode(const WorkerHello& hello);
std::string encode(const RunRequest& request);
std::string encode(const RunResponse& response);
// Each throws clustune::Error("malformed worker message: ...") for bytes it cannot decode.
WorkerHello decodeHello(const std::string& bytes);
RunRequest decodeRunRequest(const std::string& bytes);
RunResponse decodeRunResponse(const std::string& bytes);
std::string encode(const BuildResult& result);
BuildResult decodeBuildResult(const std::string& bytes);

// How a child process ended, from waitpid's status: "SIGSEGV (Segmentation fault)",
// "exit status 3".
std::string describeWaitStatus(int status);

// Writes one frame. Returns false when the other end is gone (EPIPE, ECONNRESET) and never
// raises SIGPIPE; throws clustune::Error for any other failure.
bool writeFrame(int fd, const std::string& payload);

enum class FrameStatus { Ok, Closed, TimedOut };

// Reads one frame into `payload`. Closed: the other end closed or died (also mid-frame).
// TimedOut: `deadline` passed first (none: wait for ever). Throws clustune::Error for a frame
// longer than 4 GiB (a corrupted stream) or an unexpected read failure.
FrameStatus readFrame(int fd, std::string& payload,
                      std::optional<std::chrono::steady_clock::time_point> deadline = {});

} // namespace clustune::measure
