// See Ptxas.h.
#include "codegen/cuda/Ptxas.h"

#include "support/Error.h"
#include "support/Files.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace clustune::codegen {
namespace {

namespace fs = std::filesystem;

bool isExecutable(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path, error) &&
         (fs::status(path, error).permissions() & fs::perms::owner_exec) != fs::perms::none;
}

} // namespace

std::optional<std::string> findPtxas() {
  if (const char* chosen = std::getenv("CLUSTUNE_PTXAS"); chosen && *chosen) {
    if (std::string(chosen) == "none")
      return std::nullopt;
    if (!isExecutable(chosen))
      throw Error("CLUSTUNE_PTXAS=" + std::string(chosen) + " is not an executable file");
    return std::string(chosen);
  }
  if (const char* path = std::getenv("PATH")) {
    std::istringstream directories(path);
    for (std::string directory; std::getline(directories, directory, ':');)
      if (!directory.empty() && isExecutable(fs::path(directory) / "ptxas"))
        return (fs::path(directory) / "ptxas").string();
  }
  for (const char* root : {static_cast<const char*>(std::getenv("CUDA_HOME")), "/usr/local/cuda"})
    if (root && isExecutable(fs::path(root) / "bin" / "ptxas"))
      return (fs::path(root) / "bin" / "ptxas").string();
  return std::nullopt;
}

std::string assembleCubin(const std::string& ptx, const std::string& arch,
                          const std::string& ptxas) {
  const TemporaryFolder scratch("clustune-ptxas");
  const fs::path input = fs::path(scratch.path()) / "kernels.ptx",
                 output = fs::path(scratch.path()) / "kernels.cubin",
                 log = fs::path(scratch.path()) / "ptxas.log";
  std::ofstream(input, std::ios::binary) << ptx;

  posix_spawn_file_actions_t redirect;
  posix_spawn_file_actions_init(&redirect);
  posix_spawn_file_actions_addopen(&redirect, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&redirect, STDOUT_FILENO, STDERR_FILENO);
  std::vector<std::string> words = {ptxas, "-arch=" + arch, "-O3", input.string(),
                                    "-o",  output.string()};
  std::vector<char*> argv;
  for (std::string& word : words)
    argv.push_back(word.data());
  argv.push_back(nullptr);
  pid_t child = 0;
  const int spawned = posix_spawn(&child, ptxas.c_str(), &redirect, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&redirect);
  if (spawned != 0)
    throw Error("cannot run " + ptxas + ": " + std::strerror(spawned));
  int status = 0;
  while (::waitpid(child, &status, 0) < 0)
    if (errno != EINTR)
      throw Error("waiting for " + ptxas + ": " + std::strerror(errno));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string messages = readFileBytes(log.string());
    while (!messages.empty() && messages.back() == '\n')
      messages.pop_back();
    throw Error("ptxas refused the PTX for " + arch +
                (WIFEXITED(status) ? " (exit " + std::to_string(WEXITSTATUS(status)) + ")"
                                   : " (signal " + std::to_string(WTERMSIG(status)) + ")") +
                (messages.empty() ? "" : ": " + messages));
  }
  std::string cubin = readFileBytes(output.string());
  if (cubin.empty())
    throw Error(ptxas + " wrote no cubin for " + arch);
  return cubin;
}

void attachCubin(CudaModule& module, const CudaTarget& target) {
  static const std::optional<std::string> ptxas = findPtxas();
  if (ptxas)
    module.cubin = assembleCubin(module.ptx, target.arch, *ptxas);
}

} // namespace clustune::codegen
