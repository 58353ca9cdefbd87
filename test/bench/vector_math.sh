#!/usr/bin/env bash
# The best sampled schedule of every task that calls a math function (Softmax's exp, GELU's
# erf, Tanh, Sigmoid, ...), two or more builds side by side (issue 18, vector math): each build
# measures the same sampled schedules (same seed) of the same tasks, one build after the other,
# in the reverse order every second round. Prints per task and build the best cost over all
# records and rounds, its GFLOP/s, and each build's speedup over the first. Nothing here passes
# or fails.
#   test/bench/vector_math.sh [--rounds N] [--per-task N] [--models "M ..."] [--out DIR] \
#       LABEL=BINDIR [LABEL=BINDIR ...]
# BINDIR holds clustune-partition, clustune-measure and clustune-worker.
set -euo pipefail
cd "$(dirname "$0")/../.."
source test/bench/side_by_side.sh

rounds=2 per_task=32 models="bert-base dcgan" out=experiments/vector-math
builds=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --per-task) per_task=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n 2,10p "$0"; exit 0 ;;
    *=*) builds+=("$1"); shift ;;
    *) echo "error: unknown argument '$1'" >&2; exit 1 ;;
  esac
done
[[ ${#builds[@]} -ge 1 ]] || { echo "error: name at least one LABEL=BINDIR" >&2; exit 1; }
mkdir -p "$out"
first_bin=${builds[0]#*=}
: > "$out/all.tasks.jsonl"
for model in $models; do
  "$first_bin/clustune-partition" "models/$model.onnx" -o "$out/$model.tasks.jsonl" -q
  cat "$out/$model.tasks.jsonl" >> "$out/all.tasks.jsonl"
done
python3 - "$out/all.tasks.jsonl" "$out/math.tasks.jsonl" <<'EOF'
import json, sys
math_ops = {"Softmax", "Erf", "Tanh", "Sigmoid", "Exp", "Log", "Pow", "LogSoftmax", "Gelu"}
seen, kept = set(), []
for line in open(sys.argv[1]):
    task = json.loads(line)
    ops = [node.get("op") for node in task.get("nodes", [])]
    if task["key"] not in seen and math_ops & set(ops):
        seen.add(task["key"])
        kept.append(line)
        print(f"task {task['key']} {task.get('anchor')} {task.get('flops')} FLOPs: {' '.join(ops)}")
open(sys.argv[2], "w").writelines(kept)
EOF
machine_line
for round in $(seq 1 "$rounds"); do
  mapfile -t order < <(round_order "$round" "${builds[@]}")
  for build in "${order[@]}"; do
    label=${build%%=*} bin=${build#*=}
    records="$out/$label-$round.jsonl"
    rm -f "$records"
    "$bin/clustune-measure" "$out/math.tasks.jsonl" --per-task "$per_task" --seed 0 -o "$records" -q
    echo "round $round $label: $(grep -c '"error":null' "$records") valid records"
  done
done
python3 - "$out" "$out/math.tasks.jsonl" "${builds[@]}" <<'EOF'
import glob, json, statistics, sys
out, tasks_path, builds = sys.argv[1], sys.argv[2], [b.split("=", 1)[0] for b in sys.argv[3:]]
tasks = [json.loads(line) for line in open(tasks_path)]
best = {}
for label in builds:
    for path in glob.glob(f"{out}/{label}-*.jsonl"):
        for line in open(path):
            record = json.loads(line)
            if record.get("error") is None and record.get("costs"):
                key = (label, record["task"])
                best[key] = min(best.get(key, float("inf")), statistics.median(record["costs"]))
print("| task | ops | " + " | ".join(f"{b} ms | {b} GFLOP/s" for b in builds) +
      "".join(f" | speedup of {b}" for b in builds[1:]) + " |")
print("|---|---|" + "---:|---:|" * len(builds) + "---:|" * (len(builds) - 1))
for task in tasks:
    ops = "+".join(node.get("op") for node in task.get("nodes", []))
    cells = []
    for label in builds:
        cost = best.get((label, task["key"]))
        cells += [f"{cost * 1e3:.4f}" if cost else "-",
                  f"{task['flops'] / cost / 1e9:.2f}" if cost and task["flops"] else "-"]
    first = best.get((builds[0], task["key"]))
    speedups = [f"{first / best[(b, task['key'])]:.2f}x" if first and best.get((b, task["key"]))
                else "-" for b in builds[1:]]
    print(f"| {task['key']} | {ops} | " + " | ".join(cells + speedups) + " |")
EOF
