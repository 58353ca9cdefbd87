#!/usr/bin/env bash
# Trains the bundled cost models that clustune-tune uses by default, from shipped datasets:
# the GAE over the datasets' task graphs (gae.onnx), K-means of its embeddings with K chosen by
# silhouette (clusters.json), Tenset's MLP on every record (global.onnx) and one MLP per
# cluster fine-tuned from it (cluster-<i>.onnx), all with seed 0, into
# models/costmodels/<dataset name>/ (docs/tuning.md "Bundled cost models").
#
# Usage: scripts/train_bundled.sh [--dataset data/cpu-znver5]... [--out DIR] [--holdout-model NAME]
#   --dataset DIR         repeatable: the records of every dataset train the models together, and
#                         a task that several datasets hold is taken once (labels are a task's
#                         fastest cost on the record's own target over the program's, so another
#                         machine's records add examples without mixing seconds); the default
#                         output is named by the first
#   --holdout-model NAME  trains without every task of corpus model NAME (the search experiment
#                         tunes NAME with models that never saw it); the GAE and the clusters
#                         still cover every task, since they use no measurements.
set -euo pipefail
cd "$(dirname "$0")/.."

datasets=()
out=
holdout=
while [ $# -gt 0 ]; do
  case "$1" in
    --dataset) datasets+=("$2"); shift 2 ;;
    --out) out=$2; shift 2 ;;
    --holdout-model) holdout=$2; shift 2 ;;
    *) echo "error: unknown argument '$1'" >&2; exit 1 ;;
  esac
done
[ ${#datasets[@]} -gt 0 ] || datasets=(data/cpu-znver5)
[ -n "$out" ] || out=models/costmodels/$(basename "${datasets[0]}")
for dataset in "${datasets[@]}"; do
  for file in tasks.jsonl.gz records.jsonl.gz; do
    [ -f "$dataset/$file" ] || { echo "error: $dataset/$file does not exist" >&2; exit 1; }
  done
done
for tool in clustune-embed clustune-cluster clustune-train; do
  [ -x "build/bin/$tool" ] || { echo "error: build/bin/$tool is missing: build first" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for dataset in "${datasets[@]}"; do zcat "$dataset/tasks.jsonl.gz"; done |
  jq -c -n 'reduce inputs as $t ({}; if has($t.key) then . else .[$t.key] = $t end) | .[]' > "$work/tasks.jsonl"
for dataset in "${datasets[@]}"; do zcat "$dataset/records.jsonl.gz"; done > "$work/records.jsonl"
mkdir -p "$work/out"

build/bin/clustune-embed "$work/tasks.jsonl" --train --epochs 200 --seed 0 \
  -o "$work/out/gae.onnx" > "$work/embeddings.jsonl"
build/bin/clustune-cluster "$work/embeddings.jsonl" --k-range 2:16 --seed 0 \
  -o "$work/out/clusters.json"
holdout_flags=()
[ -z "$holdout" ] || holdout_flags=(--holdout-model "$holdout")
build/bin/clustune-train "$work/records.jsonl" --tasks "$work/tasks.jsonl" \
  --clusters "$work/out/clusters.json" --mode both --cluster-init global --seed 0 \
  "${holdout_flags[@]}" -o "$work/out" > "$work/meta-summary.json"

# meta.json names the files it was trained from: the datasets', not this script's copies (one
# task file as a string, as clustune-train writes it; several as a list).
jq '.data.records = [$ARGS.positional[] + "/records.jsonl.gz"]
    | .data.tasks = ([$ARGS.positional[] + "/tasks.jsonl.gz"] | if length == 1 then .[0] else . end)
    | .data.clusters = "clusters.json"' "$work/out/meta.json" --args "${datasets[@]}" > "$work/meta.json"
mv "$work/meta.json" "$work/out/meta.json"

# Replace the directory only once everything is trained.
rm -rf "$out"
mkdir -p "$(dirname "$out")"
mv "$work/out" "$out"
echo "train_bundled: $out ($(du -sh "$out" | cut -f1)): $(ls "$out" | tr '\n' ' ')"
