#!/usr/bin/env bash
# The search-efficiency experiment (docs/results.md "Search efficiency"), the paper's headline:
# each corpus model is held out of cost-model training (scripts/train_bundled.sh
# --holdout-model), then tuned with every cost-model mode at the same trial budget and with
# several seeds, one run at a time (two measurements at once would spoil both). Each run
# writes its log, its search curve and clustune-tune's summary, and clustune-run then measures
# the tuned model end to end. scripts/search_table.py turns the results into the table and
# the plots.
#
# Usage: scripts/search_experiment.sh [--models resnet18,mobilenet_v2,bert-tiny]
#          [--modes cluster,global,online,random] [--seeds 0,1] [--trials-per-task 50]
#          [--out experiments/search] [--threads N]
# Finished runs are skipped and a cut-short one resumes its log, so rerunning continues the
# experiment.
set -euo pipefail
cd "$(dirname "$0")/.."

models=resnet18,mobilenet_v2,bert-tiny
modes=cluster,global,online,random
seeds=0,1
per_task=50
out=experiments/search
threads=$(nproc)
while [ $# -gt 0 ]; do
  case "$1" in
    --models) models=$2; shift 2 ;;
    --modes) modes=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --trials-per-task) per_task=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    *) echo "error: unknown argument '$1'" >&2; exit 1 ;;
  esac
done
for tool in clustune-partition clustune-tune clustune-run; do
  [ -x "build/bin/$tool" ] || { echo "error: build/bin/$tool is missing: build first" >&2; exit 1; }
done
mkdir -p "$out"
lscpu | sed -n 's/^Model name: *//p' > "$out/cpu.txt"

for model in ${models//,/ }; do
  onnx=models/$model.onnx
  [ -f "$onnx" ] || { echo "error: $onnx does not exist" >&2; exit 1; }
  costmodels=$out/costmodels-without-$model
  if [ ! -f "$costmodels/meta.json" ]; then
    echo "search_experiment: training cost models without $model" >&2
    scripts/train_bundled.sh --holdout-model "$model" --out "$costmodels"
  fi
  tasks=$(build/bin/clustune-partition "$onnx" -q | wc -l)
  trials=$((tasks * per_task))
  mkdir -p "$out/$model"
  for seed in ${seeds//,/ }; do
    for mode in ${modes//,/ }; do
      run=$out/$model/$mode-seed$seed
      flags=()
      case "$mode" in cluster | global) flags=(--cost-model "$costmodels") ;; esac
      if [ ! -s "$run.tune.json" ]; then
        echo "search_experiment: $model, $mode, seed $seed, $trials trials" >&2
        build/bin/clustune-tune "$onnx" --mode "$mode" "${flags[@]}" --trials "$trials" \
          --seed "$seed" --threads "$threads" -q -o "$run.log.jsonl" --curve "$run.curve.jsonl" \
          > "$run.tune.json.partial"
        mv "$run.tune.json.partial" "$run.tune.json"
      fi
      if [ ! -s "$run.run.json" ]; then
        build/bin/clustune-run "$onnx" --log "$run.log.jsonl" --threads "$threads" --repeat 20 \
          --json -q > "$run.run.json.partial"
        mv "$run.run.json.partial" "$run.run.json"
      fi
    done
  done
  default=$out/$model/default.run.json
  [ -f "$default" ] || build/bin/clustune-run "$onnx" --threads "$threads" --repeat 20 --json -q \
    > "$default"
done
echo "search_experiment: done; python3 scripts/search_table.py $out" >&2
