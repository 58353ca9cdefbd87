#!/usr/bin/env bash
# The leave-one-model-out experiment of docs/results.md: for every corpus model M, train on the
# records of the tasks that do not occur in M and evaluate on M's tasks, for
#   - the global MLP (clustune-train --holdout-model M),
#   - XGBoost with Ansor's settings on the same features and splits (scripts/xgb_baseline.py),
#   - with --clusters FILE: per-cluster MLPs from scratch and fine-tuned from the global model.
# Writes one JSON line per (model, cost model) to OUT/results.jsonl and a Markdown table to
# OUT/table.md (scripts/lomo_table.py). --variants picks what runs (default: all four);
# --label names the clustering in the cluster variants' names (mlp-<label>-scratch, ...).
#
#   scripts/lomo_experiment.sh [--data data/cpu-znver5] [--out lomo] [--clusters clusters.json]
#                              [--label cluster] [--models "resnet50 bert-base"] [--epochs 50]
#                              [--seed 0] [--variants "global xgboost cluster-scratch cluster-global"]
set -euo pipefail
cd "$(dirname "$0")/.."

data=data/cpu-znver5
out=lomo
clusters=
models=
epochs=50
seed=0
variants="global xgboost cluster-scratch cluster-global"
label=cluster
while [ $# -gt 0 ]; do
  case "$1" in
    --data) data="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --clusters) clusters="$2"; shift 2 ;;
    --models) models="$2"; shift 2 ;;
    --epochs) epochs="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --variants) variants="$2"; shift 2 ;;
    --label) label="$2"; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "error: unknown argument '$1' (see --help)" >&2; exit 1 ;;
  esac
done

bin=${CLUSTUNE_BIN:-build/bin}
for tool in clustune-train clustune-eval clustune-features; do
  [ -x "$bin/$tool" ] || { echo "error: $bin/$tool is missing: build first" >&2; exit 1; }
done
mkdir -p "$out"
zcat "$data/tasks.jsonl.gz" > "$out/tasks.jsonl"
zcat "$data/records.jsonl.gz" > "$out/records.jsonl"
[ -n "$models" ] || models=$(jq -r '.weights | keys[]' "$out/tasks.jsonl" | sort -u)
results="$out/results.jsonl"
: > "$results"

evaluate() { # name, model directory, held-out model
  "$bin/clustune-eval" "$2" "$out/records.jsonl" --tasks "$out/tasks.jsonl" --model "$3" --json -q |
    jq -c --arg model "$3" --arg cost_model "$1" --slurpfile meta "$2/meta.json" \
      '{model: $model, cost_model: $cost_model, training_programs: ($meta[0].models | map(.programs) | max),
        seconds: $meta[0].seconds} + .overall + {top1: .networks[0].top1, top5: .networks[0].top5}' >> "$results"
}

wants() { case " $variants " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
if { wants cluster-scratch || wants cluster-global; } && [ -z "$clusters" ]; then
  echo "error: the cluster variants need --clusters clusters.json" >&2
  exit 1
fi

for model in $models; do
  echo "== $model" >&2
  if wants global; then
    "$bin/clustune-train" "$out/records.jsonl" --tasks "$out/tasks.jsonl" --holdout-model "$model" \
      --epochs "$epochs" --seed "$seed" -q -o "$out/$model/global" > /dev/null
    evaluate mlp-global "$out/$model/global" "$model"
  fi
  for init in scratch global; do
    wants "cluster-$init" || continue
    # Tasks of clusters too small for a model of their own fall back to the global model, so
    # it is trained in both variants (--mode both).
    "$bin/clustune-train" "$out/records.jsonl" --tasks "$out/tasks.jsonl" --holdout-model "$model" \
      --clusters "$clusters" --mode both --cluster-init "$init" --epochs "$epochs" --seed "$seed" -q \
      -o "$out/$model/$label-$init" > /dev/null
    evaluate "mlp-$label-$init" "$out/$model/$label-$init" "$model"
  done
  tail -n 1 "$results" >&2
done

if wants xgboost; then
  "$bin/clustune-features" "$out/records.jsonl" --tasks "$out/tasks.jsonl" --seed "$seed" -q \
    -o "$out/features" > /dev/null
  holdouts=()
  for model in $models; do holdouts+=(--holdout-model "$model"); done
  python3 scripts/xgb_baseline.py "$out/features" "${holdouts[@]}" --seed "$seed" >> "$results"
fi
python3 scripts/lomo_table.py "$results" > "$out/table.md"
cat "$out/table.md"
