#!/usr/bin/env bash
# Benchmark of issue 6: embed and cluster 10,000 tasks (the corpus tasks replicated at batch
# sizes 1..25 by replicate_tasks.py) with a GAE trained on the corpus tasks, timing
# clustune-embed --model and clustune-cluster (K chosen by silhouette over 2..16, 10 restarts)
# separately, median of R runs. Never part of the test command: timings are not pass/fail.
#
#   test/bench/embed_cluster.sh [--count 10000] [--repeat 5]
set -euo pipefail
cd "$(dirname "$0")/../.."
count=10000
repeat=5
while [ $# -gt 0 ]; do
  case "$1" in
    --count) count="$2"; shift 2 ;;
    --repeat) repeat="$2"; shift 2 ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) echo "error: unknown argument '$1' (see --help)" >&2; exit 1 ;;
  esac
done
bin=${CLUSTUNE_BIN:-build/bin}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
zcat data/cpu-znver5/tasks.jsonl.gz > "$work/tasks.jsonl"
python3 test/bench/replicate_tasks.py "$work/tasks.jsonl" --count "$count" > "$work/many.jsonl"
"$bin/clustune-embed" "$work/tasks.jsonl" --train --seed 0 -q -o "$work/gae.onnx" > /dev/null

seconds() { local start end; start=$(date +%s.%N); "$@" > /dev/null; end=$(date +%s.%N); awk "BEGIN { print $end - $start }"; }
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
embed_times=() cluster_times=()
for _ in $(seq "$repeat"); do
  embed_times+=("$(seconds "$bin/clustune-embed" "$work/many.jsonl" --model "$work/gae.onnx" -q -o /dev/null)")
  "$bin/clustune-embed" "$work/many.jsonl" --model "$work/gae.onnx" -q > "$work/embeddings.jsonl"
  cluster_times+=("$(seconds "$bin/clustune-cluster" "$work/embeddings.jsonl" --seed 0 -q -o "$work/clusters.json")")
done
embed=$(printf '%s\n' "${embed_times[@]}" | median)
cluster=$(printf '%s\n' "${cluster_times[@]}" | median)
echo "{\"tasks\":$count,\"cores\":$(nproc),\"repeat\":$repeat,\"embed_seconds\":$embed,\"cluster_seconds\":$cluster,\"total_seconds\":$(awk "BEGIN { print $embed + $cluster }"),\"k\":$(jq .k "$work/clusters.json")}"
