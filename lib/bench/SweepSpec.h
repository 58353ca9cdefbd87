// What a clustune-bench sweep runs: the batch sizes, and the "compilers" that run each model.
// A compiler is clustune with default schedules, clustune with a tuning log, or a peer runtime
// (ONNX Runtime, PyTorch eager, TVM) run through scripts/bench_peer.py.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace clustune::bench {

enum class CompilerKind { Default, Tuned, Ort, Torch, Tvm };

// "default", "tuned", "ort", "torch", "tvm": the name in rows and in the peer script's --runtime.
std::string compilerName(CompilerKind kind);

struct CompilerSpec {
  CompilerKind kind = CompilerKind::Default;
  std::string logPath = {}; // Tuned: the tuning log
  bool required = true;     // false for the peers of the default list: skipped with a note when
                            // unavailable; a compiler named in --compilers must run
  // Default and Tuned: the channel block of the blocked layout NCHW[x]c the model is converted
  // to (graph/BlockedLayout.h); 0 keeps NCHW. Named in the row as "default@NCHW16c".
  std::int64_t channelBlock = 0;
  std::string name() const;
  bool isPeer() const {
    return kind == CompilerKind::Ort || kind == CompilerKind::Torch || kind == CompilerKind::Tvm;
  }
};

// "1,2,4,8": positive, strictly increasing, no duplicates. Throws Error otherwise.
std::vector<std::int64_t> parseBatchList(const std::string& text);

// "default,tuned:run/log.jsonl,ort": each compiler once; clustune's own take a layout,
// "default@NCHW16c" and "tuned@NCHW16c:LOG". Throws Error on an unknown name or layout, an
// empty list or a tuned entry without a log.
std::vector<CompilerSpec> parseCompilers(const std::string& text);

// What runs when --compilers is not given: default schedules, then every peer that is
// installed (the peers are not required).
std::vector<CompilerSpec> defaultCompilers();

} // namespace clustune::bench
