// The Runner/worker wire format (measure/WorkerProtocol.h): messages survive a round trip, a
// damaged message is refused with an Error instead of being misread, and frames over a real
// socket pair report a closed peer and a deadline instead of blocking or raising SIGPIPE.
#include "measure/WorkerProtocol.h"

#include "support/Error.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace clustune;
using namespace clustune::measure;

namespace {

RunRequest sampleRequest() {
  return RunRequest{
      .objectBytes = std::string("\x7f"
                                 "ELF\0\1\2",
                                 7),
      .functionName = "kernel",
      .arguments = {{.name = "x", .shape = {2, 3}, .isWeight = true, .fixedValues = {0.5}},
                    {.name = "y", .dtype = graph::DataType::Int64, .shape = {}, .isOutput = true}},
      .timing =
          {.number = 4, .repeat = 5, .minRepeatMs = 2.5, .cacheFlush = true, .coldWeights = true},
      .seed = 0x1234567890abcdefULL,
      .threads = 3,
      .returnOutputs = true};
}

TEST(WorkerProtocolTest, RequestsRoundTrip) {
  const RunRequest request = sampleRequest();
  const RunRequest decoded = decodeRunRequest(encode(request));
  EXPECT_EQ(decoded.objectBytes, request.objectBytes);
  EXPECT_EQ(decoded.functionName, request.functionName);
  EXPECT_EQ(decoded.arguments, request.arguments);
  EXPECT_EQ(decoded.timing, request.timing);
  EXPECT_EQ(decoded.seed, request.seed);
  EXPECT_EQ(decoded.threads, request.threads);
  EXPECT_EQ(decoded.returnOutputs, request.returnOutputs);
}

TEST(WorkerProtocolTest, GpuRequestsAndBuildsCarryTheirModule) {
  const codegen::CudaModule module{
      .ptx = ".version 8.5\n.target sm_90\n",
      .cubin = std::string("\x7f"
                           "ELF\0\x01\xff",
                           7),
      .launches = {{.kernel = "f_kernel0", .grid = {8, 1, 1}, .block = {256, 1, 1}},
                   {.kernel = "f_kernel1", .grid = {2, 3, 4}, .block = {32, 4, 2}}},
      .workspace = {{.name = "T_tmp", .bytes = 4096}}};
  RunRequest request = sampleRequest();
  request.objectBytes.clear();
  request.gpu = module;
  const RunRequest decoded = decodeRunRequest(encode(request));
  EXPECT_EQ(decoded.gpu.ptx, module.ptx);
  EXPECT_EQ(decoded.gpu.cubin, module.cubin);
  EXPECT_EQ(decoded.gpu.launches, module.launches);
  ASSERT_EQ(decoded.gpu.workspace.size(), 1u);
  EXPECT_EQ(decoded.gpu.workspace[0].name, "T_tmp");
  EXPECT_EQ(decoded.gpu.workspace[0].bytes, 4096);
  EXPECT_EQ(decoded.arguments, request.arguments);

  const BuildResult built{.gpu = module, .functionName = "f", .compileSeconds = 0.25};
  const BuildResult decodedBuild = decodeBuildResult(encode(built));
  EXPECT_TRUE(decodedBuild.isGpu());
  EXPECT_EQ(decodedBuild.gpu.launches, module.launches);
  EXPECT_EQ(decodedBuild.compileSeconds, 0.25);

  const RunResponse spent{
      .error = "runtime", .errorDetail = "illegal address", .workerSpent = true};
  EXPECT_TRUE(decodeRunResponse(encode(spent)).workerSpent);
  EXPECT_FALSE(decodeRunResponse(encode(RunResponse{})).workerSpent);
}

TEST(WorkerProtocolTest, ResponsesAndHellosRoundTrip) {
  const RunResponse response{.error = "runtime",
                             .errorDetail = "no symbol",
                             .costs = {1e-6, 2e-6},
                             .outputBytes = {std::string(12, '\3'), ""}};
  const RunResponse decoded = decodeRunResponse(encode(response));
  EXPECT_EQ(decoded.error, response.error);
  EXPECT_EQ(decoded.errorDetail, response.errorDetail);
  EXPECT_EQ(decoded.costs, response.costs);
  EXPECT_EQ(decoded.outputBytes, response.outputBytes);
  const WorkerHello hello = decodeHello(encode(WorkerHello{.pid = 42}));
  EXPECT_EQ(hello.version, kWorkerProtocolVersion);
  EXPECT_EQ(hello.pid, 42);
}

TEST(WorkerProtocolTest, DamagedMessagesAreRefused) {
  const std::string bytes = encode(sampleRequest());
  EXPECT_THROW(decodeRunRequest(bytes.substr(0, bytes.size() - 1)), Error);
  EXPECT_THROW(decodeRunRequest(bytes + "x"), Error);
  EXPECT_THROW(decodeRunResponse(bytes), Error); // the wrong kind of message
  std::string hugeCount = encode(RunResponse{});
  hugeCount[4 + 8 + 8] = '\x7f'; // the cost count, after the tag and two empty strings
  EXPECT_THROW(decodeRunResponse(hugeCount), Error);
}

class SocketPair : public ::testing::Test {
protected:
  void SetUp() override { ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds_), 0); }
  void TearDown() override {
    for (int fd : fds_)
      if (fd >= 0)
        ::close(fd);
  }
  void closeEnd(int end) {
    ::close(fds_[end]);
    fds_[end] = -1;
  }
  int fds_[2] = {-1, -1};
};

TEST_F(SocketPair, FramesArriveWhole) {
  const std::string big(1 << 20, 'z'); // larger than the socket buffer: written in pieces
  std::string received;
  std::thread writer([&] {
    EXPECT_TRUE(writeFrame(fds_[0], big));
    EXPECT_TRUE(writeFrame(fds_[0], ""));
  });
  EXPECT_EQ(readFrame(fds_[1], received), FrameStatus::Ok);
  EXPECT_EQ(received, big);
  EXPECT_EQ(readFrame(fds_[1], received), FrameStatus::Ok);
  EXPECT_EQ(received, "");
  writer.join();
}

TEST_F(SocketPair, AClosedPeerIsReportedNotFatal) {
  closeEnd(1);
  EXPECT_FALSE(writeFrame(fds_[0], "hello")); // no SIGPIPE: the test would die
  std::string received;
  EXPECT_EQ(readFrame(fds_[0], received), FrameStatus::Closed);
}

TEST_F(SocketPair, APartialFrameThenCloseIsClosed) {
  const std::uint64_t size = 100;
  ASSERT_EQ(::write(fds_[0], &size, sizeof size), static_cast<ssize_t>(sizeof size));
  ASSERT_EQ(::write(fds_[0], "abc", 3), 3);
  closeEnd(0);
  std::string received;
  EXPECT_EQ(readFrame(fds_[1], received), FrameStatus::Closed);
}

TEST_F(SocketPair, ASilentPeerTimesOut) {
  std::string received;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(readFrame(fds_[1], received, start + std::chrono::milliseconds(50)),
            FrameStatus::TimedOut);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(50));
}

} // namespace
