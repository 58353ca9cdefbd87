#!/usr/bin/env bash
# Prints a Markdown table: per corpus model, the number of distinct tasks, the sum of
# weight x task FLOPs from clustune-partition, and the independent count from
# scripts/count_flops.py (stored in models/flops.jsonl), with their relative difference.
#   scripts/partition_report.sh [build/bin/clustune-partition]
set -euo pipefail
cd "$(dirname "$0")/.."
tool=${1:-build/bin/clustune-partition}
echo "| model | tasks | Σ weight × task FLOPs | independent FLOPs | difference |"
echo "|---|--:|--:|--:|--:|"
for model in models/*.onnx; do
  name=$(basename "$model" .onnx)
  "$tool" "$model" -q | jq -s -r --arg name "$name" --slurpfile reference models/flops.jsonl '
    ($reference[] | select(.model == $name) | .flops) as $theirs
    | (map(.weight * .flops) | add) as $ours
    | "| \($name) | \(length) | \($ours) | \($theirs) | \((($ours - $theirs) / $theirs * 100 * 1000 | round) / 1000)% |"'
done
