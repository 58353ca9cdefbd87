// See WorkerProtocol.h.
#include "measure/WorkerProtocol.h"

#include "support/Error.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <type_traits>
#include <unistd.h>

namespace clustune::measure {
namespace {

constexpr std::uint32_t kHelloTag = 0x4c4c4548;    // "HELL"
constexpr std::uint32_t kRequestTag = 0x51455552;  // "RUEQ"
constexpr std::uint32_t kResponseTag = 0x50534552; // "RESP"
constexpr std::uint32_t kBuildTag = 0x444c4942;    // "BILD"

class ByteWriter {
public:
  template <class T>
  void put(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes_.append(reinterpret_cast<const char*>(&value), sizeof(T));
  }
  void putString(const std::string& text) {
    put<std::uint64_t>(text.size());
    bytes_ += text;
  }
  std::string take() { return std::move(bytes_); }

private:
  std::string bytes_;
};

class ByteReader {
public:
  explicit ByteReader(const std::string& bytes) : bytes_(bytes) {}
  template <class T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    need(sizeof(T));
    T value;
    std::memcpy(&value, bytes_.data() + position_, sizeof(T));
    position_ += sizeof(T);
    return value;
  }
  std::string getString() {
    const auto size = get<std::uint64_t>();
    need(size);
    std::string text = bytes_.substr(position_, size);
    position_ += size;
    return text;
  }
  // A count of items that each take at least `minimumItemBytes`, checked against what is left
  // so that a corrupted count cannot make the reader allocate gigabytes.
  std::size_t getCount(std::size_t minimumItemBytes) {
    const auto count = get<std::uint64_t>();
    if (count > (bytes_.size() - position_) / std::max<std::size_t>(minimumItemBytes, 1))
      fail("count " + std::to_string(count) + " exceeds the message");
    return count;
  }
  void expectTag(std::uint32_t tag, const char* what) {
    if (get<std::uint32_t>() != tag)
      fail(std::string("expected a ") + what);
  }
  void expectEnd() {
    if (position_ != bytes_.size())
      fail(std::to_string(bytes_.size() - position_) + " trailing bytes");
  }

private:
  void need(std::uint64_t size) {
    if (size > bytes_.size() - position_)
      fail("truncated");
  }
  [[noreturn]] static void fail(const std::string& why) {
    throw Error("malformed worker message: " + why);
  }
  const std::string& bytes_;
  std::size_t position_ = 0;
};

void putSpec(ByteWriter& out, const ArgumentSpec& spec) {
  out.putString(spec.name);
  out.put<std::int32_t>(static_cast<std::int32_t>(spec.dtype));
  out.put<std::uint64_t>(spec.shape.size());
  for (std::int64_t extent : spec.shape)
    out.put(extent);
  out.put<std::uint8_t>(spec.isOutput);
  out.put<std::uint8_t>(spec.isWeight);
  out.put<std::uint64_t>(spec.fixedValues.size());
  for (double value : spec.fixedValues)
    out.put(value);
}

ArgumentSpec getSpec(ByteReader& in) {
  ArgumentSpec spec;
  spec.name = in.getString();
  const auto dtype = in.get<std::int32_t>();
  if (dtype < 0 || dtype > static_cast<std::int32_t>(graph::DataType::Bool))
    throw Error("malformed worker message: unknown dtype " + std::to_string(dtype));
  spec.dtype = static_cast<graph::DataType>(dtype);
  spec.shape.resize(in.getCount(sizeof(std::int64_t)));
  for (std::int64_t& extent : spec.shape)
    extent = in.get<std::int64_t>();
  spec.isOutput = in.get<std::uint8_t>() != 0;
  spec.isWeight = in.get<std::uint8_t>() != 0;
  spec.fixedValues.resize(in.getCount(sizeof(double)));
  for (double& value : spec.fixedValues)
    value = in.get<double>();
  return spec;
}

void putGpuModule(ByteWriter& out, const codegen::CudaModule& module) {
  out.putString(module.ptx);
  out.putString(module.cubin);
  out.put<std::uint64_t>(module.launches.size());
  for (const codegen::CudaLaunch& launch : module.launches) {
    out.putString(launch.kernel);
    for (std::int64_t extent : launch.grid)
      out.put(extent);
    for (std::int64_t extent : launch.block)
      out.put(extent);
  }
  out.put<std::uint64_t>(module.workspace.size());
  for (const codegen::CudaWorkspace& buffer : module.workspace) {
    out.putString(buffer.name);
    out.put(buffer.bytes);
  }
}

codegen::CudaModule getGpuModule(ByteReader& in) {
  codegen::CudaModule module;
  module.ptx = in.getString();
  module.cubin = in.getString();
  module.launches.resize(in.getCount(sizeof(std::uint64_t) + 6 * sizeof(std::int64_t)));
  for (codegen::CudaLaunch& launch : module.launches) {
    launch.kernel = in.getString();
    for (std::int64_t& extent : launch.grid)
      extent = in.get<std::int64_t>();
    for (std::int64_t& extent : launch.block)
      extent = in.get<std::int64_t>();
  }
  module.workspace.resize(in.getCount(sizeof(std::uint64_t) + sizeof(std::int64_t)));
  for (codegen::CudaWorkspace& buffer : module.workspace) {
    buffer.name = in.getString();
    buffer.bytes = in.get<std::int64_t>();
  }
  return module;
}

} // namespace

std::string encode(const WorkerHello& hello) {
  ByteWriter out;
  out.put(kHelloTag);
  out.put(hello.version);
  out.put(hello.pid);
  return out.take();
}

WorkerHello decodeHello(const std::string& bytes) {
  ByteReader in(bytes);
  in.expectTag(kHelloTag, "hello");
  WorkerHello hello;
  hello.version = in.get<std::uint32_t>();
  hello.pid = in.get<std::int64_t>();
  in.expectEnd();
  return hello;
}

std::string encode(const RunRequest& request) {
  ByteWriter out;
  out.put(kRequestTag);
  out.putString(request.objectBytes);
  putGpuModule(out, request.gpu);
  out.putString(request.functionName);
  out.put<std::uint64_t>(request.arguments.size());
  for (const ArgumentSpec& spec : request.arguments)
    putSpec(out, spec);
  out.put<std::int32_t>(request.timing.number);
  out.put<std::int32_t>(request.timing.repeat);
  out.put(request.timing.minRepeatMs);
  out.put<std::uint8_t>(request.timing.cacheFlush);
  out.put<std::uint8_t>(request.timing.coldWeights);
  out.put(request.timing.slowRunSeconds);
  out.put(request.seed);
  out.put<std::int32_t>(request.threads);
  out.put<std::uint8_t>(request.returnOutputs);
  return out.take();
}

RunRequest decodeRunRequest(const std::string& bytes) {
  ByteReader in(bytes);
  in.expectTag(kRequestTag, "run request");
  RunRequest request;
  request.objectBytes = in.getString();
  request.gpu = getGpuModule(in);
  request.functionName = in.getString();
  const std::size_t count = in.getCount(1);
  for (std::size_t i = 0; i < count; ++i)
    request.arguments.push_back(getSpec(in));
  request.timing.number = in.get<std::int32_t>();
  request.timing.repeat = in.get<std::int32_t>();
  request.timing.minRepeatMs = in.get<double>();
  request.timing.cacheFlush = in.get<std::uint8_t>() != 0;
  request.timing.coldWeights = in.get<std::uint8_t>() != 0;
  request.timing.slowRunSeconds = in.get<double>();
  request.seed = in.get<std::uint64_t>();
  request.threads = in.get<std::int32_t>();
  request.returnOutputs = in.get<std::uint8_t>() != 0;
  in.expectEnd();
  return request;
}

std::string encode(const RunResponse& response) {
  ByteWriter out;
  out.put(kResponseTag);
  out.putString(response.error);
  out.putString(response.errorDetail);
  out.put<std::uint64_t>(response.costs.size());
  for (double cost : response.costs)
    out.put(cost);
  out.put<std::uint64_t>(response.outputBytes.size());
  for (const std::string& output : response.outputBytes)
    out.putString(output);
  out.put<std::uint8_t>(response.workerSpent);
  return out.take();
}

RunResponse decodeRunResponse(const std::string& bytes) {
  ByteReader in(bytes);
  in.expectTag(kResponseTag, "run response");
  RunResponse response;
  response.error = in.getString();
  response.errorDetail = in.getString();
  response.costs.resize(in.getCount(sizeof(double)));
  for (double& cost : response.costs)
    cost = in.get<double>();
  response.outputBytes.resize(in.getCount(sizeof(std::uint64_t)));
  for (std::string& output : response.outputBytes)
    output = in.getString();
  response.workerSpent = in.get<std::uint8_t>() != 0;
  in.expectEnd();
  return response;
}

bool writeFrame(int fd, const std::string& payload) {
  std::string frame;
  frame.reserve(sizeof(std::uint64_t) + payload.size());
  const std::uint64_t size = payload.size();
  frame.append(reinterpret_cast<const char*>(&size), sizeof size);
  frame += payload;
  std::size_t written = 0;
  while (written < frame.size()) {
    // MSG_NOSIGNAL: a dead peer is an error code here, never a SIGPIPE that kills the caller.
    const ssize_t result = ::send(fd, frame.data() + written, frame.size() - written, MSG_NOSIGNAL);
    if (result < 0) {
      if (errno == EINTR)
        continue;
      if (errno == EPIPE || errno == ECONNRESET)
        return false;
      throw Error(std::string("cannot write to the measurement worker: ") + std::strerror(errno));
    }
    written += static_cast<std::size_t>(result);
  }
  return true;
}

std::string describeWaitStatus(int status) {
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    const char* abbreviation = ::sigabbrev_np(signal);
    const std::string name =
        abbreviation ? std::string("SIG") + abbreviation : "signal " + std::to_string(signal);
    return name + " (" + ::strsignal(signal) + ")";
  }
  if (WIFEXITED(status))
    return "exit status " + std::to_string(WEXITSTATUS(status));
  return "wait status " + std::to_string(status);
}

std::string encode(const BuildResult& result) {
  ByteWriter out;
  out.put(kBuildTag);
  out.putString(result.objectBytes);
  putGpuModule(out, result.gpu);
  out.putString(result.functionName);
  out.put<std::uint64_t>(result.arguments.size());
  for (const ArgumentSpec& spec : result.arguments)
    putSpec(out, spec);
  out.putString(result.error);
  out.putString(result.errorDetail);
  out.put(result.compileSeconds);
  return out.take();
}

BuildResult decodeBuildResult(const std::string& bytes) {
  ByteReader in(bytes);
  in.expectTag(kBuildTag, "build result");
  BuildResult result;
  result.objectBytes = in.getString();
  result.gpu = getGpuModule(in);
  result.functionName = in.getString();
  const std::size_t count = in.getCount(1);
  for (std::size_t i = 0; i < count; ++i)
    result.arguments.push_back(getSpec(in));
  result.error = in.getString();
  result.errorDetail = in.getString();
  result.compileSeconds = in.get<double>();
  in.expectEnd();
  return result;
}

namespace {

// Reads exactly `size` bytes into `out`.
FrameStatus readExactly(int fd, char* out, std::size_t size,
                        std::optional<std::chrono::steady_clock::time_point> deadline) {
  std::size_t done = 0;
  while (done < size) {
    int timeoutMs = -1;
    if (deadline) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          *deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0)
        return FrameStatus::TimedOut;
      timeoutMs = static_cast<int>(std::min<std::int64_t>(left.count() + 1, 1 << 30));
    }
    pollfd ready{.fd = fd, .events = POLLIN, .revents = 0};
    const int polled = ::poll(&ready, 1, timeoutMs);
    if (polled < 0) {
      if (errno == EINTR)
        continue;
      throw Error(std::string("cannot wait for the measurement worker: ") + std::strerror(errno));
    }
    if (polled == 0)
      continue; // the deadline check above decides
    const ssize_t result = ::read(fd, out + done, size - done);
    if (result == 0)
      return FrameStatus::Closed;
    if (result < 0) {
      if (errno == EINTR || errno == EAGAIN)
        continue;
      if (errno == ECONNRESET)
        return FrameStatus::Closed;
      throw Error(std::string("cannot read from the measurement worker: ") + std::strerror(errno));
    }
    done += static_cast<std::size_t>(result);
  }
  return FrameStatus::Ok;
}

} // namespace

FrameStatus readFrame(int fd, std::string& payload,
                      std::optional<std::chrono::steady_clock::time_point> deadline) {
  std::uint64_t size = 0;
  if (FrameStatus status = readExactly(fd, reinterpret_cast<char*>(&size), sizeof size, deadline);
      status != FrameStatus::Ok)
    return status;
  if (size > (std::uint64_t{1} << 32))
    throw Error("malformed worker message: frame of " + std::to_string(size) + " bytes");
  payload.assign(size, '\0');
  return readExactly(fd, payload.data(), size, deadline);
}

} // namespace clustune::measure
