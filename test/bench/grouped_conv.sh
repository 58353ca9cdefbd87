#!/usr/bin/env bash
# Depthwise and grouped convolutions against the machine's roofline (issue 18, item 5): the best
# of N sampled schedules of every Conv task with group > 1, as GFLOP/s and as GB/s of the bytes
# the task must move (its inputs and outputs once), each as a share of the machine's peak
# (scripts/peak_flops' all-thread GFLOP/s, scripts/peak_bandwidth's all-thread read GB/s), and
# which bound binds (the one whose time is longer). Nothing here passes or fails.
#   test/bench/grouped_conv.sh --peak-gflops G --peak-gbs B [--per-task N] [--models "M ..."] \
#       [--out DIR] [--bin DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."

per_task=64 models="mobilenet_v2 resnext50_32x4d" out=experiments/grouped-conv bin=build/bin
peak_gflops="" peak_gbs=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --per-task) per_task=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    --peak-gflops) peak_gflops=$2; shift 2 ;;
    --peak-gbs) peak_gbs=$2; shift 2 ;;
    -h|--help) sed -n 2,8p "$0"; exit 0 ;;
    *) echo "error: unknown argument '$1'" >&2; exit 1 ;;
  esac
done
[[ -n $peak_gflops && -n $peak_gbs ]] || { echo "error: give --peak-gflops and --peak-gbs" >&2; exit 1; }
mkdir -p "$out"
: > "$out/all.tasks.jsonl"
for model in $models; do
  "$bin/clustune-partition" "models/$model.onnx" -o "$out/$model.tasks.jsonl" -q
  cat "$out/$model.tasks.jsonl" >> "$out/all.tasks.jsonl"
done
python3 - "$out/all.tasks.jsonl" "$out/grouped.tasks.jsonl" <<'PY'
import json, sys
seen, kept = set(), []
for line in open(sys.argv[1]):
    task = json.loads(line)
    conv = next((n for n in task.get("nodes", []) if n["op"] == "Conv"), None)
    if conv and conv["attrs"].get("group", 1) > 1 and task["key"] not in seen:
        seen.add(task["key"])
        kept.append(line)
open(sys.argv[2], "w").writelines(kept)
print(f"{len(kept)} grouped convolution tasks")
PY
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores;" \
  "$(llc-19 --version 2>/dev/null | grep 'Host CPU' | sed 's/^ *//')"
rm -f "$out/records.jsonl"
"$bin/clustune-measure" "$out/grouped.tasks.jsonl" --per-task "$per_task" --seed 0 \
  -o "$out/records.jsonl" -q
python3 - "$out/grouped.tasks.jsonl" "$out/records.jsonl" "$peak_gflops" "$peak_gbs" <<'PY'
import json, statistics, sys
tasks = [json.loads(line) for line in open(sys.argv[1])]
peak_gflops, peak_gbs = float(sys.argv[3]), float(sys.argv[4])
best = {}
for line in open(sys.argv[2]):
    record = json.loads(line)
    if record.get("error") is None and record.get("costs"):
        cost = statistics.median(record["costs"])
        best[record["task"]] = min(best.get(record["task"], cost), cost)
print("| task | models | input | weight | group | ms | GFLOP/s | % of FLOP peak | GB/s | % of bandwidth | bound | % of bound |")
print("|---|---|---|---|---:|---:|---:|---:|---:|---:|---|---:|")
shares = []
for task in tasks:
    if task["key"] not in best:
        continue
    conv = next(n for n in task["nodes"] if n["op"] == "Conv")
    seconds = best[task["key"]]
    gflops = task["flops"] / seconds * 1e-9
    gbs = (task["bytes_read"] + task["bytes_written"]) / seconds * 1e-9
    compute_time = task["flops"] / (peak_gflops * 1e9)
    memory_time = (task["bytes_read"] + task["bytes_written"]) / (peak_gbs * 1e9)
    bound = "memory" if memory_time > compute_time else "compute"
    share = max(compute_time, memory_time) / seconds
    shares.append(share)
    shape = lambda s: "x".join(map(str, s))
    print(f"| {task['key']} | {' '.join(task['weights'])} | {shape(task['inputs'][0]['shape'])} | "
          f"{shape(task['inputs'][1]['shape'])} | {conv['attrs']['group']} | {seconds * 1e3:.4f} | "
          f"{gflops:.1f} | {100 * gflops / peak_gflops:.0f}% | {gbs:.1f} | {100 * gbs / peak_gbs:.0f}% | "
          f"{bound} | {100 * share:.0f}% |")
if shares:
    print(f"median share of the binding bound: {100 * statistics.median(shares):.0f}% over {len(shares)} tasks; "
          f"at least 60%: {sum(s >= 0.6 for s in shares)}")
PY
