#!/usr/bin/env bash
# The clustune-bench results of docs/results.md ("Batch sweeps and depth sweeps"): the corpus
# models across batch sizes under clustune's default schedules, ONNX Runtime and PyTorch (the
# BERTs from models/dynamic/, whose batch is a dynamic dimension); then the block models of
# scripts/make_block_models.py across depths, tuned on the one-block model; then the plots. One
# measurement at a time.
#
# Usage: scripts/bench_corpus.sh [--models resnet18,mobilenet_v2,bert-tiny,dcgan]
#          [--batch 1,2,4,8] [--depths 1,2,4,8] [--families resnet_basic,transformer]
#          [--compilers default,ort,torch] [--trials-per-task 64] [--threads N] [--repeat R]
#          [--out experiments/bench] [--skip-depth] [--tune-batches] [--layout NCHW16c] [--seed S]
# --tune-batches first tunes every model at every batch (--trials-per-task per distinct task,
# one log and its clustune-tune summary per model and batch under OUT/tuning/), and adds their
# union as the compiler tuned.
# A model's first batch in --batch is tuned first, and its tasks and log are the donors
# (clustune-tune --donor-tasks/--donor-log) of its other batches.
# --layout tunes and runs clustune's compilers (default and tuned, in both sweeps) in that
# convolution layout (clustune-tune --layout; default@L and tuned@L:LOG in clustune-bench).
# --seed is clustune-tune's, for every tuning run (default 0).
# Writes OUT/batch.jsonl, OUT/batch-metrics.json, OUT/depth.jsonl, OUT/depth-metrics.json and
# the PNG files OUT/batch-*.png, OUT/depth-depth.png.
set -euo pipefail
cd "$(dirname "$0")/.."

models=resnet18,mobilenet_v2,bert-tiny,dcgan
batch=1,2,4,8
compilers=default,ort,torch
depths=1,2,4,8
families=resnet_basic,transformer
per_task=64
threads=$(nproc)
repeat=10
out=experiments/bench
skip_depth=0
tune_batches=0
layout=NCHW
seed=0
while [ $# -gt 0 ]; do
  case "$1" in
    --models) models=$2; shift 2 ;;
    --batch) batch=$2; shift 2 ;;
    --compilers) compilers=$2; shift 2 ;;
    --depths) depths=$2; shift 2 ;;
    --families) families=$2; shift 2 ;;
    --trials-per-task) per_task=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --skip-depth) skip_depth=1; shift ;;
    --tune-batches) tune_batches=1; shift ;;
    --layout) layout=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    -h|--help) sed -n 2,21p "$0"; exit 0 ;;
    *) echo "error: unknown argument '$1'" >&2; exit 1 ;;
  esac
done
bin=build/bin
# Tuning logs of another layout are other files: a log is reused only in its own layout.
suffix=
[ "$layout" = NCHW ] || suffix=-$layout
mkdir -p "$out"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores" >&2

paths=()
for model in ${models//,/ }; do
  # The static BERT exports cannot change their batch (models/README.md, "Dynamic-batch BERT").
  if [ -f "models/dynamic/$model.onnx" ]; then
    paths+=("models/dynamic/$model.onnx")
  else
    paths+=("models/$model.onnx")
  fi
done
# --input-shape flags that set axis 0 of every graph input of model $1 to batch $2.
batch_shapes() {
  python3 - "$1" "$2" <<'PY'
import sys, onnx
model = onnx.load(sys.argv[1], load_external_data=False)
weights = {tensor.name for tensor in model.graph.initializer}
for value in model.graph.input:
    if value.name in weights:
        continue
    dims = [d.dim_value if d.HasField("dim_value") else 0 for d in value.type.tensor_type.shape.dim]
    print(f"{value.name}=" + "x".join(str(d) for d in [int(sys.argv[2])] + dims[1:]))
PY
}
if [ "$tune_batches" = 1 ]; then
  mkdir -p "$out/tuning"
  logs=()
  for path in "${paths[@]}"; do
    donors=()
    for b in ${batch//,/ }; do
      name="$out/tuning/$(basename "$path" .onnx)-b$b$suffix"
      log="$name.jsonl"
      logs+=("$log")
      mapfile -t shapes < <(batch_shapes "$path" "$b")
      "$bin/clustune-partition" "$path" --input-shape "${shapes[@]}" --layout "$layout" -q \
        -o "$name.tasks.jsonl"
      if [ ! -s "$log" ]; then
        tasks=$(wc -l < "$name.tasks.jsonl")
        echo "tuning $path at batch $b: $tasks tasks x $per_task trials" >&2
        "$bin/clustune-tune" "$path" --input-shape "${shapes[@]}" --trials $((tasks * per_task)) \
          --layout "$layout" --threads "$threads" --seed "$seed" "${donors[@]}" -q -o "$log" > "$name.summary.json"
      fi
      [ ${#donors[@]} -eq 0 ] && donors=(--donor-tasks "$name.tasks.jsonl" --donor-log "$log")
    done
  done
  cat "${logs[@]}" > "$out/batch.tuning.jsonl"
  compilers="$compilers,tuned:$out/batch.tuning.jsonl"
fi
# clustune-bench's compiler list $1 with clustune's compilers in --layout: default@L, tuned@L:LOG.
in_layout() {
  if [ "$layout" = NCHW ]; then
    echo "$1"
  else
    echo "$1" | tr ',' '\n' | sed -e "s/^default\$/default@$layout/" -e "s/^tuned:/tuned@$layout:/" |
      paste -sd,
  fi
}
"$bin/clustune-bench" "${paths[@]}" --batch "$batch" --compilers "$(in_layout "$compilers")" \
  --threads "$threads" --repeat "$repeat" -o "$out/batch.jsonl" --metrics "$out/batch-metrics.json"
python3 scripts/plot_bench.py "$out/batch.jsonl" --metrics "$out/batch-metrics.json" \
  --out "$out/batch" --title "corpus models, $threads threads"

[ "$skip_depth" = 1 ] && exit 0
python3 scripts/make_block_models.py --out "$out/blocks" --depths "$depths" --families "$families"
for family in ${families//,/ }; do
  shallowest=${depths%%,*}
  log="$out/blocks/${family}$suffix.tuning.jsonl"
  if [ ! -s "$log" ]; then
    tasks=$("$bin/clustune-partition" "$out/blocks/${family}_d${shallowest}.onnx" \
      --layout "$layout" -q | wc -l)
    "$bin/clustune-tune" "$out/blocks/${family}_d${shallowest}.onnx" --trials $((tasks * per_task)) \
      --layout "$layout" --threads "$threads" --seed "$seed" -q -o "$log" > /dev/null
  fi
  family_paths=()
  for depth in ${depths//,/ }; do family_paths+=("$out/blocks/${family}_d${depth}.onnx"); done
  "$bin/clustune-bench" --depth-sweep "${family_paths[@]}" \
    --compilers "$(in_layout "default,tuned:$log,ort")" \
    --threads "$threads" --repeat "$repeat" -o "$out/depth-$family.jsonl"
done
cat "$out"/depth-*.jsonl > "$out/depth.jsonl"
"$bin/clustune-bench" --from "$out/depth.jsonl" --depth-sweep --metrics "$out/depth-metrics.json" -q
python3 scripts/plot_bench.py "$out/depth.jsonl" --metrics "$out/depth-metrics.json" \
  --out "$out/depth" --title "block models, $threads threads"
