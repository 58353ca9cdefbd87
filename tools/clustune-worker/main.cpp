// clustune-worker: the measurement worker process that measure::Runner starts (DESIGN §5). Not
// meant to be run by hand: it speaks the binary protocol of measure/WorkerProtocol.h on the
// socket whose descriptor it is given, and dies with its parent.
//
//   clustune-worker --fd <descriptor> --parent <pid>
#include "measure/Worker.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/prctl.h>
#include <unistd.h>

namespace {

const char* const kUsage =
    "clustune-worker: the isolated process in which clustune's measurement Runner loads and\n"
    "times candidate kernels, so that a kernel that crashes or hangs never takes the caller\n"
    "down. It is started by the Runner, not by hand; it speaks a binary protocol on the socket\n"
    "it is given and dies with its parent.\n"
    "Usage: clustune-worker --fd <descriptor> --parent <pid>\n";

} // namespace

// In a sanitized build (CLUSTUNE_SANITIZE): a generated kernel that faults is a measured
// outcome here ("crash", by the signal that killed the worker), so AddressSanitizer must let
// SIGSEGV and SIGBUS kill the process instead of reporting and exiting with its own status.
#if defined(__SANITIZE_ADDRESS__) // GCC and Clang define it under -fsanitize=address
extern "C" const char* __asan_default_options() {
  return "handle_segv=0:handle_sigbus=0";
}
#endif

int main(int argc, char** argv) {
  if (argc == 2 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  int fd = -1;
  long parent = -1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--fd")
      fd = std::atoi(argv[i + 1]);
    else if (flag == "--parent")
      parent = std::atol(argv[i + 1]);
  }
  if (fd < 0 || parent <= 0 || argc != 5) {
    std::fprintf(stderr, "error: clustune-worker is started by clustune's measurement Runner "
                         "(usage: clustune-worker --fd <descriptor> --parent <pid>; --help)\n");
    return 1;
  }
  // A tuner killed without closing the socket must not leave a worker spinning on a kernel; the
  // getppid() check covers a parent that died before prctl took effect.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent)
    return 0;
  try {
    return clustune::measure::serveRequests(fd);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "clustune-worker: %s\n", error.what());
    return 1;
  }
}
