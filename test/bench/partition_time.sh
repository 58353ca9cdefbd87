#!/usr/bin/env bash
# Benchmark: wall time of clustune-partition (import, shape inference, simplification,
# fusion, JSONL output) per model, median of N runs (default 5). Not a pass/fail test.
#   test/bench/partition_time.sh [build/bin/clustune-partition] [runs] [models...]
set -euo pipefail
cd "$(dirname "$0")/../.."
tool=${1:-build/bin/clustune-partition}
runs=${2:-5}
shift $(( $# > 2 ? 2 : $# )) || true
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(models/resnet50.onnx models/bert-large.onnx)

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
printf '%-24s %10s %10s %10s\n' model median_s min_s max_s
for model in "${models[@]}"; do
  times=()
  for _ in $(seq "$runs"); do
    start=$(date +%s.%N)
    "$tool" "$model" -q -o /dev/null
    end=$(date +%s.%N)
    times+=("$(echo "$end - $start" | bc -l)")
  done
  sorted=$(printf '%s\n' "${times[@]}" | sort -g)
  median=$(echo "$sorted" | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}')
  printf '%-24s %10.4f %10.4f %10.4f\n' "$(basename "$model" .onnx)" "$median" \
    "$(echo "$sorted" | head -1)" "$(echo "$sorted" | tail -1)"
done
