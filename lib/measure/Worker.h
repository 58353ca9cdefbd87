// The body of the clustune-worker process (tools/clustune-worker): it loads each candidate's
// object code (or PTX, run on the GPU: GpuWorker.cpp), runs it on seeded inputs and times it,
// answering the Runner over one socket. It lives in a process of its own so that a candidate that
// faults, aborts or never returns takes only this process down (Runner.h restarts it), never the
// tuner.
#pragma once

#include "measure/WorkerProtocol.h"

namespace clustune::measure {

// Loads, runs and times one candidate. Failures to load or run it become a response with
// error "runtime"; a fault inside the kernel kills the process, by design.
RunResponse executeRunRequest(const RunRequest& request);
// The same for a GPU candidate (request.gpu), on device 0. A kernel that faults loses the CUDA
// context: its response is a runtime error with workerSpent set.
RunResponse executeGpuRunRequest(const RunRequest& request);

// Sends the hello, then serves requests on `fd` until the parent closes it or a response says
// the worker is spent. Returns the process exit status: 0 then, 1 after a broken message.
int serveRequests(int fd);

} // namespace clustune::measure
