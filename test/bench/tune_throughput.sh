#!/usr/bin/env bash
# Wall time of clustune-tune and its split into search, measurement and update, two or more
# builds side by side (issue 14): for each round and model, every build tunes the model from
# scratch with the same seed and trials, one build after the other, in the reverse order every
# second round. Prints each run's summary line, then per build and model the medians over rounds
# of wall, search, measuring and update seconds and the tuner's estimated latency. The searches
# of two builds of one commit stay identical only until measured times first differ, so the
# estimates compare only over several rounds. Nothing here passes or fails.
#   test/bench/tune_throughput.sh [--rounds N] [--trials-per-task N] [--models a,b]
#       [--layout L] [--seed S] [--out DIR] LABEL=BINDIR [LABEL=BINDIR ...]
# BINDIR holds clustune-tune, clustune-partition and clustune-worker (a build's bin/, or a copy
# of an older one).
set -euo pipefail
cd "$(dirname "$0")/../.."
source test/bench/side_by_side.sh

rounds=2 per_task=16 models=dcgan,bert-tiny layout=NCHW16c seed=0 out=experiments/tune-throughput
builds=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --trials-per-task) per_task=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    --layout) layout=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n 2,12p "$0"; exit 0 ;;
    *=*) builds+=("$1"); shift ;;
    *) echo "error: unknown argument '$1'" >&2; exit 1 ;;
  esac
done
[[ ${#builds[@]} -ge 1 ]] || { echo "error: name at least one LABEL=BINDIR" >&2; exit 1; }
IFS=, read -r -a model_list <<< "$models"
for model in "${model_list[@]}"; do
  [[ -f models/$model.onnx ]] || { echo "error: no models/$model.onnx" >&2; exit 1; }
done
mkdir -p "$out"
first_bin=${builds[0]#*=}
machine_line
for round in $(seq 1 "$rounds"); do
  mapfile -t order < <(round_order "$round" "${builds[@]}")
  for model in "${model_list[@]}"; do
    tasks=$("$first_bin/clustune-partition" "models/$model.onnx" -q | wc -l)
    for build in "${order[@]}"; do
      label=${build%%=*} bin=${build#*=}
      records="$out/$label-$model-$round.jsonl"
      rm -f "$records"
      summary=$("$bin/clustune-tune" "models/$model.onnx" --trials $((tasks * per_task)) \
        --layout "$layout" --threads 2 --seed "$seed" -q -o "$records")
      echo "$summary" > "$out/$label-$model-$round.summary.json"
      echo "round $round $label $model: $summary"
    done
  done
done
python3 - "$out" "$rounds" "$models" "${builds[@]}" <<'EOF'
import json, statistics, sys
out, rounds, models = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(",")
builds = [b.split("=")[0] for b in sys.argv[4:]]
print(f"{'model':<12}{'build':<12}{'wall s':>8}{'search s':>10}{'measure s':>11}{'update s':>10}"
      f"{'search %':>10}{'estimated ms':>14}")
for model in models:
    for label in builds:
        runs = [json.load(open(f"{out}/{label}-{model}-{r}.summary.json"))
                for r in range(1, rounds + 1)]
        median = lambda key: statistics.median(run[key] for run in runs)
        print(f"{model:<12}{label:<12}{median('seconds'):>8.1f}{median('search_seconds'):>10.1f}"
              f"{median('measure_seconds'):>11.1f}{median('update_seconds'):>10.2f}"
              f"{100 * median('search_share'):>9.0f}%{median('estimated_ms'):>14.3f}")
EOF
