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
  std::string name() const { return compilerName(kind); }
  bool isPeer() const {
    return kind == CompilerKind::Ort || kind == CompilerKind::Torch || kind == CompilerKind::Tvm;
  }
};

// "1,2,4,8": positive, strictly increasing, no duplicates. Throws Error otherwise.
std::vector<std::int64_t> parseBatchList(const std::string& text);

// "default,tuned:run/log.jsonl,ort": each compiler once. Throws Error on an
// unknown name, an empty list or a tuned entry without a log.
std::vector<CompilerSpec> parseCompilers(const std::string& text);

// What runs when --compilers is not given: default schedules, then every peer that is
// installed (the peers are not required).
std::vector<CompilerSpec> defaultCompilers();

} // namespace clustune::bench
