#!/usr/bin/env bash
# The README's first command, the main job on the bundled default: builds clustune, tunes the
# bundled ResNet-50 with the bundled per-cluster cost models under a time budget (600 s, a coffee
# break; the first argument changes it), then runs the model with default schedules and with the
# tuning log and prints both latencies side by side, with ONNX Runtime's on the same weights and
# inputs where the onnxruntime Python package is installed.
# Usage: scripts/demo.sh [BUDGET_SECONDS] [MODEL.onnx]
# The log, the curve and the summaries go to demo/ (CLUSTUNE_DEMO_DIR changes it); rerunning
# with the same budget resumes a log that was cut short. The model is tuned and run in the
# blocked layout NCHW16c, the faster one on AVX2 and AVX-512 alike (docs/performance.md,
# "Blocked layouts"); CLUSTUNE_DEMO_LAYOUT=NCHW keeps the convolutions in NCHW.
set -euo pipefail
cd "$(dirname "$0")/.."
budget=${1:-600}
model=${2:-models/resnet50.onnx}
case "$budget" in
  '' | *[!0-9]*) echo "error: the budget must be whole seconds, got '$budget'" >&2; exit 1 ;;
esac
[ -f "$model" ] || { echo "error: $model does not exist" >&2; exit 1; }

scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" --target clustune-tune clustune-run clustune-worker

name=$(basename "$model" .onnx)
out=${CLUSTUNE_DEMO_DIR:-demo}
layout=${CLUSTUNE_DEMO_LAYOUT:-NCHW16c}
mkdir -p "$out"
# A log holds the task keys of one layout: each layout has its own.
log=$out/$name.tuning.jsonl
[ "$layout" = NCHW ] || log=$out/$name.$layout.tuning.jsonl
threads=$(nproc)
echo "demo: tuning $model in $layout for ${budget} s on $(nproc) cores (log $log)" >&2
build/bin/clustune-tune "$model" --layout "$layout" --time-budget "$budget" --threads "$threads" \
  -o "$log" --curve "$out/$name.curve.jsonl" > "$out/$name.tune.json"

if python3 -c 'import onnxruntime, onnx, numpy' 2>/dev/null; then
  python3 scripts/ort_compare.py --models "$name" --latency --log "$log" --layout "$layout" \
    --threads "$threads" --repeat 10
else
  build/bin/clustune-run "$model" --layout "$layout" --threads "$threads" --repeat 10 --json -q \
    > "$out/$name.default.json"
  build/bin/clustune-run "$model" --layout "$layout" --threads "$threads" --repeat 10 --log "$log" \
    --json -q > "$out/$name.tuned.json"
  jq -r -s '"model \(.[0].model): default \(.[0].latency_ms.median | . * 100 | round / 100) ms, " +
            "tuned \(.[1].latency_ms.median | . * 100 | round / 100) ms " +
            "(\(.[0].latency_ms.median / .[1].latency_ms.median | . * 100 | round / 100)x, " +
            "\(.[1].tuned_kernels) tuned kernels); ONNX Runtime: not installed " +
            "(pip install onnxruntime onnx numpy)"' "$out/$name.default.json" "$out/$name.tuned.json"
fi
jq -r '"tuning: \(.new_trials) candidates measured in \(.seconds | round) s (\(.trials_per_second * 100 | round / 100)/s, search \(.search_share * 100 | round)% of the time), estimated \(.estimated_ms * 1000 | round / 1000) ms against \(.default_ms * 1000 | round / 1000) ms by default"' \
  "$out/$name.tune.json"
