// The peer runtimes of a sweep (ONNX Runtime, PyTorch eager, TVM), run as a subprocess:
// scripts/bench_peer.py reads the model with clustune's weights and the inputs as TensorProto
// files, times the model and writes its outputs back (docs/bench.md, "Peers").
#pragma once

#include "bench/BenchRow.h"
#include "bench/SweepSpec.h"
#include "te/TensorData.h"

#include <string>
#include <vector>

namespace clustune::bench {

struct PeerSettings {
  std::string script = {}; // scripts/bench_peer.py
  std::string python = "python3";
  int threads = 1;
  int repeat = 10;
};

struct PeerResult {
  RowStatus status = RowStatus::Ok;
  std::string reason = {};
  std::vector<double> runSeconds = {};
  std::vector<te::TensorData> outputs = {};
};

// Whether the peer can run here: Ok, or Unavailable with the reason (a module not installed).
PeerResult probePeer(CompilerKind kind, const PeerSettings& settings);

// `folder` holds model.onnx (weights inline, inputs at the sweep's batch) and input_<i>.pb;
// the peer writes output_<i>.pb beside them.
PeerResult runPeer(CompilerKind kind, const std::string& folder, std::size_t outputCount,
                   const PeerSettings& settings);

} // namespace clustune::bench
