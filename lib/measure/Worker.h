// The body of the clustune-worker process (tools/clustune-worker): it loads each candidate's
// object code, runs it on seeded inputs and times it, answering the Runner over one socket. It
// lives in a process of its own so that a candidate that faults, aborts or never returns takes
// only this process down (Runner.h restarts it), never the tuner.
#pragma once

#include "measure/WorkerProtocol.h"

namespace clustune::measure {

// Loads, runs and times one candidate. Failures to load or run it become a response with
// error "runtime"; a fault inside the kernel kills the process, by design.
RunResponse executeRunRequest(const RunRequest& request);

// Sends the hello, then serves requests on `fd` until the parent closes it. Returns the
// process exit status: 0 when the parent closed the connection, 1 after a broken message.
int serveRequests(int fd);

} // namespace clustune::measure
