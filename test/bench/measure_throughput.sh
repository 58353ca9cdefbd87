#!/usr/bin/env bash
# Measured candidates per second of clustune-measure, two or more builds side by side (issue 14):
# for each round, every build measures the same tasks from scratch (cold: a new output, the
# reference computed again), one build after the other, so that the builds share the machine's
# drift, in the reverse order every second round. Prints each run's summary line, then per
# build the median over rounds of valid records per second, the share of wall time by stage,
# the compile seconds per candidate (median and p90) and per run (the median of the sums).
# Nothing here passes or fails.
#   test/bench/measure_throughput.sh [--rounds N] [--per-task N] [--model M] [--out DIR] \
#       LABEL=BINDIR [LABEL=BINDIR ...]
# BINDIR holds clustune-measure and clustune-worker (a build's bin/, or a copy of an older one).
set -euo pipefail
cd "$(dirname "$0")/../.."
source test/bench/side_by_side.sh

rounds=2 per_task=16 model=resnet50 out=experiments/throughput
builds=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --per-task) per_task=$2; shift 2 ;;
    --model) model=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n 2,10p "$0"; exit 0 ;;
    *=*) builds+=("$1"); shift ;;
    *) echo "error: unknown argument '$1'" >&2; exit 1 ;;
  esac
done
[[ ${#builds[@]} -ge 1 ]] || { echo "error: name at least one LABEL=BINDIR" >&2; exit 1; }
mkdir -p "$out"
first_bin=${builds[0]#*=}
"$first_bin/clustune-partition" "models/$model.onnx" -o "$out/$model.tasks.jsonl" -q
machine_line
for round in $(seq 1 "$rounds"); do
  mapfile -t order < <(round_order "$round" "${builds[@]}")
  for build in "${order[@]}"; do
    label=${build%%=*} bin=${build#*=}
    records="$out/$label-$round.jsonl"
    rm -f "$records"
    summary=$("$bin/clustune-measure" "$out/$model.tasks.jsonl" --target host \
      --per-task "$per_task" -o "$records" -q)
    echo "$summary" > "$out/$label-$round.summary.json"
    echo "round $round $label: $summary"
  done
done
python3 - "$out" "$rounds" "${builds[@]}" <<'EOF'
import json, statistics, sys
out, rounds, builds = sys.argv[1], int(sys.argv[2]), [b.split("=")[0] for b in sys.argv[3:]]
def quantile(values, q):
    values = sorted(values)
    return values[int(q * (len(values) - 1) + 0.5)] if values else 0.0
print(f"{'build':<12}{'valid/s':>9}{'wall s':>9}{'build':>8}{'run':>7}{'ref':>7}{'check':>7}"
      f"{'other':>7}{'compile med':>13}{'p90':>8}{'compile s':>11}")
for label in builds:
    summaries = [json.load(open(f"{out}/{label}-{r}.summary.json")) for r in range(1, rounds + 1)]
    compiles, totals = [], []
    for r in range(1, rounds + 1):
        run = [json.loads(l)["compile_seconds"] for l in open(f"{out}/{label}-{r}.jsonl")]
        compiles += run
        totals.append(sum(run))
    rate = statistics.median(s["valid_per_second"] for s in summaries)
    wall = statistics.median(s["seconds"] for s in summaries)
    shares = {}
    for stage in ["build", "run", "reference", "check", "other"]:
        shares[stage] = statistics.median(
            s.get("stage_seconds", {}).get(stage, float("nan")) / s["seconds"] for s in summaries)
    print(f"{label:<12}{rate:>9.2f}{wall:>9.1f}" +
          "".join(f"{100 * shares[s]:>6.0f}%" for s in ["build", "run", "reference", "check", "other"]) +
          f"{quantile(compiles, 0.5):>13.3f}{quantile(compiles, 0.9):>8.3f}"
          f"{statistics.median(totals):>11.1f}")
EOF
