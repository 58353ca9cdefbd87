#!/usr/bin/env bash
# The leave-one-model-out experiment of docs/results.md: for every corpus model M, train on the
# records of the tasks that do not occur in M and evaluate on M's tasks, for
#   - the global MLP (clustune-train --holdout-model M),
#   - XGBoost with Ansor's settings on the same features and splits (scripts/xgb_baseline.py),
#   - with --clusters FILE: per-cluster MLPs from scratch and fine-tuned from the global model,
#     on one clustering of every task (M's tasks included: they are assigned, not routed);
#   - per fold (fold-gae, fold-raw, fold-random): a clustering of the training tasks only, made
#     inside the fold (the GAE too is trained without M's tasks), with per-cluster MLPs
#     fine-tuned from the global model. M's tasks are then unseen: clustune-eval --embeddings
#     routes each by its nearest centroid, or to the global model when it is far from every
#     cluster (the novelty fallback), and the results count both. fold-random deals the
#     training tasks at random into clusters of fold-gae's sizes: the control that must lose.
#   - global-finetuned: the global MLP fine-tuned once more, on all its training tasks, exactly
#     as a cluster's model is (one cluster of every task). The per-cluster variants get this
#     second round of training too; this control measures what it gives without any clusters.
#   - global-long: the global MLP trained once, for twice the epochs, with a cosine schedule:
#     the budget of both rounds of training in one, without clusters or a restart.
# Writes one JSON line per (model, cost model) to OUT/results.jsonl and a Markdown table to
# OUT/table.md (scripts/lomo_table.py; give it several seeds' results.jsonl for means and
# spreads over seeds). --variants picks what runs (default: the first four); --label names the
# clustering in the --clusters variants' names (mlp-<label>-scratch, ...). --fold-k gives the
# fold clusterings' K, or several to compare (mlp-fold-gae-k8, ...; default: K chosen by
# silhouette in each fold, mlp-fold-gae): choosing K by cost-model quality is this comparison.
#
#   scripts/lomo_experiment.sh [--data data/cpu-znver5] [--out lomo] [--clusters clusters.json]
#                              [--label cluster] [--models "resnet50 bert-base"] [--epochs 50]
#                              [--hidden W] [--fold-k "K..."] [--seed 0]
#                              [--variants "global xgboost cluster-scratch cluster-global
#                                           fold-gae fold-raw fold-random global-finetuned
#                                           global-long"]
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
hidden=
fold_k=0
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
    --hidden) hidden="$2"; shift 2 ;;
    --fold-k) fold_k="$2"; shift 2 ;;
    -h|--help) sed -n '2,31p' "$0"; exit 0 ;;
    *) echo "error: unknown argument '$1' (see --help)" >&2; exit 1 ;;
  esac
done

bin=${CLUSTUNE_BIN:-build/bin}
for tool in clustune-train clustune-eval clustune-features clustune-embed clustune-cluster; do
  [ -x "$bin/$tool" ] || { echo "error: $bin/$tool is missing: build first" >&2; exit 1; }
done
mkdir -p "$out"
zcat "$data/tasks.jsonl.gz" > "$out/tasks.jsonl"
zcat "$data/records.jsonl.gz" > "$out/records.jsonl"
[ -n "$models" ] || models=$(jq -r '.weights | keys[]' "$out/tasks.jsonl" | sort -u)
results="$out/results.jsonl"
: > "$results"

trainer=("$bin/clustune-train" "$out/records.jsonl" --tasks "$out/tasks.jsonl" --seed "$seed" -q)
[ -z "$hidden" ] || trainer+=(--hidden "$hidden")
train=("${trainer[@]}" --epochs "$epochs")

evaluate() { # name, model directory, held-out model[, embeddings.jsonl]
  local embeddings=()
  [ $# -lt 4 ] || embeddings=(--embeddings "$4")
  "$bin/clustune-eval" "$2" "$out/records.jsonl" --tasks "$out/tasks.jsonl" --model "$3" --json -q \
    "${embeddings[@]}" |
    jq -c --arg model "$3" --arg cost_model "$1" --argjson seed "$seed" --slurpfile meta "$2/meta.json" \
      '{model: $model, cost_model: $cost_model, seed: $seed,
        training_programs: ($meta[0].models | map(.programs) | max),
        seconds: $meta[0].seconds} + .overall + {top1: .networks[0].top1, top5: .networks[0].top5,
        routing: .routing}' >> "$results"
}

# The embeddings of one fold, in OUT/M/fold, made once for every K: every task embedded by a GAE
# trained on the training tasks only, and the training tasks' own lines. Raw features need no
# training, so every fold shares OUT/raw-embeddings.jsonl.
make_fold_embeddings() { # held-out model
  local fold="$out/$1/fold"
  mkdir -p "$fold"
  jq -c --arg m "$1" 'select(.weights[$m] == null)' "$out/tasks.jsonl" > "$fold/tasks.jsonl"
  jq -c '{(.key): true}' "$fold/tasks.jsonl" | jq -s -c add > "$fold/keys.json"
  if wants fold-gae || wants fold-random; then
    "$bin/clustune-embed" "$fold/tasks.jsonl" --train --seed "$seed" -q -o "$fold/gae.onnx" > /dev/null
    "$bin/clustune-embed" "$out/tasks.jsonl" --model "$fold/gae.onnx" -q > "$fold/gae-embeddings.jsonl"
  fi
  if wants fold-raw; then
    [ -e "$out/raw-embeddings.jsonl" ] ||
      "$bin/clustune-embed" "$out/tasks.jsonl" --method raw-mean -q > "$out/raw-embeddings.jsonl"
    ln -sf ../../raw-embeddings.jsonl "$fold/raw-embeddings.jsonl"
  fi
  for space in gae raw; do
    [ -e "$fold/$space-embeddings.jsonl" ] || continue
    jq -c --slurpfile keys "$fold/keys.json" 'select($keys[0][.key])' "$fold/$space-embeddings.jsonl" \
      > "$fold/$space-training.jsonl"
  done
}

# K-means with K clusters (0: by silhouette) over the fold's training embeddings, and the random
# control of the GAE clustering's sizes, in OUT/M/fold-kK.
make_fold_clusterings() { # held-out model, K
  local fold="$out/$1/fold" clusters="$out/$1/fold-k$2" k=()
  mkdir -p "$clusters"
  [ "$2" = 0 ] || k=(--k "$2")
  for space in gae raw; do
    [ -e "$fold/$space-training.jsonl" ] || continue
    "$bin/clustune-cluster" "$fold/$space-training.jsonl" "${k[@]}" --seed "$seed" -q \
      -o "$clusters/$space.json" > /dev/null
  done
  if wants fold-random; then
    "$bin/clustune-cluster" "$fold/gae-training.jsonl" --random-like "$clusters/gae.json" \
      --seed "$seed" -q -o "$clusters/random.json" > /dev/null
  fi
}

wants() { case " $variants " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
if { wants cluster-scratch || wants cluster-global; } && [ -z "$clusters" ]; then
  echo "error: the cluster variants need --clusters clusters.json" >&2
  exit 1
fi

# Every task in cluster 0: held-out tasks are assigned to it, so all of them use its model.
! wants global-finetuned ||
  jq -s -c '{v: 1, k: 1, silhouette: 0, centroids: [[0]], assign: (map({(.key): 0}) | add)}' \
    "$out/tasks.jsonl" > "$out/one-cluster.json"
# Every variant but XGBoost and global-long is the fold's global MLP or fine-tunes from it.
needs_global=false
for variant in $variants; do
  case "$variant" in xgboost | global-long) ;; *) needs_global=true ;; esac
done

for model in $models; do
  echo "== $model" >&2
  # Every variant with clusters fine-tunes from, or falls back to, the fold's global MLP
  # (--mode both): it is trained once per fold and taken with --global-from, which gives the
  # files a training inside each run would.
  ! $needs_global || "${train[@]}" --holdout-model "$model" -o "$out/$model/global" > /dev/null
  global=(--global-from "$out/$model/global")
  ! wants global || evaluate mlp-global "$out/$model/global" "$model"
  if wants global-finetuned; then
    "${train[@]}" --holdout-model "$model" --clusters "$out/one-cluster.json" --mode both \
      "${global[@]}" -o "$out/$model/global-finetuned" > /dev/null
    evaluate mlp-global-finetuned "$out/$model/global-finetuned" "$model"
  fi
  if wants global-long; then
    "${trainer[@]}" --epochs $((2 * epochs)) --schedule cosine --holdout-model "$model" \
      -o "$out/$model/global-long" > /dev/null
    evaluate mlp-global-long "$out/$model/global-long" "$model"
  fi
  for init in scratch global; do
    wants "cluster-$init" || continue
    "${train[@]}" --holdout-model "$model" --clusters "$clusters" --mode both --cluster-init "$init" \
      "${global[@]}" -o "$out/$model/$label-$init" > /dev/null
    evaluate "mlp-$label-$init" "$out/$model/$label-$init" "$model"
  done
  if wants fold-gae || wants fold-raw || wants fold-random; then
    make_fold_embeddings "$model"
    for k in $fold_k; do
      make_fold_clusterings "$model" "$k"
      suffix=-k$k
      [ "$k" != 0 ] || suffix=
      for clustering in gae raw random; do
        wants "fold-$clustering" || continue
        space=$clustering
        [ "$clustering" != random ] || space=gae
        "${train[@]}" --holdout-model "$model" --clusters "$out/$model/fold-k$k/$clustering.json" \
          --mode both --cluster-init global "${global[@]}" -o "$out/$model/fold-$clustering$suffix" \
          > /dev/null
        evaluate "mlp-fold-$clustering$suffix" "$out/$model/fold-$clustering$suffix" "$model" \
          "$out/$model/fold/$space-embeddings.jsonl"
      done
    done
  fi
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
