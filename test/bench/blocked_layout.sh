#!/usr/bin/env bash
# ResNet-50's convolutions in NCHW and in the blocked layout NCHW16c, side by side (issue 18,
# item 2): the same convolutions (the peers cases and the 7×7 stem) are taken from
# `clustune-partition --layout NCHW` and `--layout NCHW16c`, each set is tuned with the same
# trials and seed, and then the best schedule of every task from both logs is measured again in
# --rounds interleaved runs of one `clustune-measure --schedules` each (NCHW, blocked, blocked,
# NCHW, ...). Prints GFLOP/s per convolution: the median over the rounds of each round's least
# cost. Nothing here passes or fails.
#   test/bench/blocked_layout.sh [--trials-per-task N] [--rounds N] [--layout NCHW16c] \
#       [--bin DIR] [--out DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."

trials=64 rounds=4 layout=NCHW16c bin=build/bin out=experiments/blocked-layout
while [[ $# -gt 0 ]]; do
  case "$1" in
    --trials-per-task) trials=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --layout) layout=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n 2,10p "$0"; exit 0 ;;
    *) echo "error: unknown argument '$1'" >&2; exit 1 ;;
  esac
done
mkdir -p "$out"

# The convolutions by their NCHW input and weight shapes and strides: the six peers cases of
# docs/performance.md and the stem, which is a quarter of ResNet-18's tuned time.
cases='["1x64x56x56 64x64x1x1 1", "1x512x28x28 128x512x1x1 1", "1x1024x14x14 256x1024x1x1 1",
        "1x2048x7x7 512x2048x1x1 1", "1x256x14x14 256x256x3x3 1", "1x512x7x7 512x512x3x3 1",
        "1x3x224x224 64x3x7x7 2"]'
# A blocked task's NCHW shapes, so that both layouts select and name the same convolutions.
select_cases() {
  jq -c --argjson cases "$cases" '
    def dims: map(tostring) | join("x");
    def nchw: if length == 5 then [.[0], .[1] * .[4], .[2], .[3]] else . end;
    def kchw: if length == 6 then [.[0] * .[5], .[1] * .[4], .[2], .[3]] else . end;
    select(.anchor == "Conv" or .anchor == "ConvNCHWc")
    | ((.inputs[0].shape | nchw | dims) + " " + (.inputs[1].shape | kchw | dims) + " "
       + (.nodes[0].attrs.strides[0] | tostring)) as $name
    | select($cases | index($name)) | . + {case: $name}' "$1"
}

for l in NCHW "$layout"; do
  "$bin/clustune-partition" models/resnet50.onnx --layout "$l" -q -o "$out/all.$l.jsonl"
  select_cases "$out/all.$l.jsonl" | jq -c 'del(.case)' > "$out/tasks.$l.jsonl"
  select_cases "$out/all.$l.jsonl" | jq -r '[.key, .case, .flops] | @tsv' > "$out/names.$l.tsv"
  n=$(wc -l < "$out/tasks.$l.jsonl")
  rm -f "$out/tune.$l.jsonl"
  "$bin/clustune-tune" --tasks "$out/tasks.$l.jsonl" --trials $((n * trials)) --seed 0 -q \
    -o "$out/tune.$l.jsonl" > "$out/tune.$l.summary.json"
  echo "$l: $n tasks tuned in $(jq .seconds "$out/tune.$l.summary.json") s" >&2
  # The least-cost valid record of each task.
  jq -sc 'map(select(.error == null)) | group_by(.task)[] | min_by(.costs | min)' \
    "$out/tune.$l.jsonl" > "$out/best.$l.jsonl"
done

: > "$out/rounds.tsv"
for ((round = 1; round <= rounds; round++)); do
  order=(NCHW "$layout")
  ((round % 2 == 0)) && order=("$layout" NCHW)
  for l in "${order[@]}"; do
    rm -f "$out/again.jsonl"
    "$bin/clustune-measure" "$out/tasks.$l.jsonl" --schedules "$out/best.$l.jsonl" -q \
      -o "$out/again.jsonl"
    jq -r --arg l "$l" --argjson r "$round" \
      'select(.error == null) | [$r, $l, .task, (.costs | min)] | @tsv' "$out/again.jsonl" \
      >> "$out/rounds.tsv"
  done
done

python3 - "$out" "$layout" <<'EOF'
import csv, statistics, sys
out, layout = sys.argv[1], sys.argv[2]
names = {}
for l in ("NCHW", layout):
    for key, case, flops in csv.reader(open(f"{out}/names.{l}.tsv"), delimiter="\t"):
        names[key] = (case, int(flops))
costs = {}
for round_, l, key, cost in csv.reader(open(f"{out}/rounds.tsv"), delimiter="\t"):
    costs.setdefault((names[key][0], l), []).append(float(cost))
print(f"| convolution (input, weight, stride) | NCHW GFLOP/s | {layout} GFLOP/s | ratio |")
print("|---|---:|---:|---:|")
flops = {case: f for case, f in names.values()}
for case in dict.fromkeys(case for case, _ in names.values()):
    g = {l: flops[case] / statistics.median(costs[(case, l)]) * 1e-9
         for l in ("NCHW", layout) if (case, l) in costs}
    if len(g) == 2:
        print(f"| {case} | {g['NCHW']:.1f} | {g[layout]:.1f} | {g[layout] / g['NCHW']:.2f} |")
EOF
