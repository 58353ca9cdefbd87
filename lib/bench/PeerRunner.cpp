// Running scripts/bench_peer.py and reading what it reports: one JSON line on stdout, the
// outputs as TensorProto files.
#include "bench/PeerRunner.h"

#include "onnx/TensorFile.h"
#include "support/Error.h"

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>
#include <sys/wait.h>

namespace clustune::bench {
namespace {

std::string shellQuote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text)
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// The peer's own stderr (library warnings, deprecation notes) at debug level, or at warning
// level when it failed: the sweep's log stays the sweep's.
void logPeerStderr(CompilerKind kind, const std::string& path, bool failed) {
  std::ifstream file(path);
  std::string line;
  while (std::getline(file, line))
    if (!line.empty())
      spdlog::log(failed ? spdlog::level::warn : spdlog::level::debug, "{}: {}", compilerName(kind),
                  line);
}

// Runs the script with `arguments` and turns its last stdout line into a result: status and
// reason from the report, or Unavailable/Failed when the script cannot run or reports nothing.
// Its stderr goes to `stderrPath`.
PeerResult runScript(CompilerKind kind, const std::string& arguments, const PeerSettings& settings,
                     const std::string& stderrPath, nlohmann::json& report) {
  PeerResult result;
  if (!std::filesystem::exists(settings.script)) {
    result.status = RowStatus::Unavailable;
    result.reason = "the peer script " + settings.script + " is missing (see --peer-script)";
    return result;
  }
  const std::string command = shellQuote(settings.python) + " " + shellQuote(settings.script) +
                              " --runtime " + compilerName(kind) + " " + arguments + " 2>" +
                              shellQuote(stderrPath);
  spdlog::debug("peer: {}", command);
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe)
    throw Error("cannot start the peer script: " + command);
  std::string output;
  std::array<char, 4096> buffer;
  while (std::size_t read = std::fread(buffer.data(), 1, buffer.size(), pipe))
    output.append(buffer.data(), read);
  const int status = pclose(pipe);
  const int exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  while (!output.empty() && output.back() == '\n')
    output.pop_back();
  const std::string line = output.substr(output.find_last_of('\n') + 1); // npos + 1 is 0
  try {
    report = nlohmann::json::parse(line);
  } catch (const nlohmann::json::exception&) {
    // 127: the shell found no such interpreter.
    result.status = exitCode == 127 ? RowStatus::Unavailable : RowStatus::Failed;
    result.reason = compilerName(kind) + ": " + settings.python + " " + settings.script +
                    " exited with status " + std::to_string(exitCode) + " without a report";
    return result;
  }
  const std::string reported = report.value("status", "");
  result.reason = report.value("reason", "");
  if (reported == "unavailable") {
    result.status = RowStatus::Unavailable;
  } else if (reported != "ok" || exitCode != 0) {
    result.status = RowStatus::Failed;
    if (result.reason.empty())
      result.reason = compilerName(kind) + " failed (exit status " + std::to_string(exitCode) + ")";
  }
  return result;
}

} // namespace

PeerResult probePeer(CompilerKind kind, const PeerSettings& settings) {
  nlohmann::json report;
  return runScript(kind, "--probe", settings, "/dev/null", report);
}

PeerResult runPeer(CompilerKind kind, const std::string& folder, std::size_t outputCount,
                   const PeerSettings& settings) {
  nlohmann::json report;
  PeerResult result = runScript(kind,
                                "--folder " + shellQuote(folder) + " --threads " +
                                    std::to_string(settings.threads) + " --repeat " +
                                    std::to_string(settings.repeat),
                                settings, folder + "/peer-stderr.txt", report);
  logPeerStderr(kind, folder + "/peer-stderr.txt", result.status == RowStatus::Failed);
  if (result.status != RowStatus::Ok)
    return result;
  for (double ms : report.value("runs_ms", std::vector<double>{}))
    result.runSeconds.push_back(ms * 1e-3);
  if (result.runSeconds.empty()) {
    result.status = RowStatus::Failed;
    result.reason = compilerName(kind) + ": the peer script reported no runs";
    return result;
  }
  for (std::size_t i = 0; i < outputCount; ++i)
    result.outputs.push_back(
        onnx_import::readTensorFile(folder + "/output_" + std::to_string(i) + ".pb").data);
  return result;
}

} // namespace clustune::bench
