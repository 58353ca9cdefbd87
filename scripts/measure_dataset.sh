#!/usr/bin/env bash
# Measures, or resumes, the dataset shipped under data/cpu-<host CPU>/: every task of the corpus
# models (models/*.onnx, batch 1) sampled and measured by clustune-measure on this machine, in
# passes of rising --per-task (10, 50, 300 valid records per task) so that an interrupted run
# still covers every task, until each task has 300 or the dataset holds 100,000 records.
#
#   scripts/measure_dataset.sh [--time-budget SEC] [--per-task-passes "10 50 300"]
#                              [--max-records N] [--seed S] [--wide]
#
# --wide measures the wider dataset of issue 15 instead, under data/wide-cpu-<host CPU>/: the
# 2,122 tasks of scripts/wide_tasks.sh (the corpus at Tenset's batch sizes and shapes), in
# passes of 10, 50 and 100 valid records per task, up to 250,000 records.
#
# The work file data/<dir>/records.jsonl (git-ignored) is what clustune-measure appends to; it
# is seeded from the shipped records.jsonl.gz when absent, so any machine of the same class can
# continue the dataset. At the end (or when the budget runs out) the work file is compressed
# into records.jsonl.gz and summarised in summary.md (scripts/dataset_summary.py). Run it on
# an otherwise idle machine: other load disturbs the timings.
set -euo pipefail
cd "$(dirname "$0")/.."

time_budget=0
passes=""
max_records=""
seed=0
wide=0
while [ $# -gt 0 ]; do
  case "$1" in
    --time-budget) time_budget="$2"; shift 2 ;;
    --per-task-passes) passes="$2"; shift 2 ;;
    --max-records) max_records="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --wide) wide=1; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "error: unknown argument '$1' (see --help)" >&2; exit 1 ;;
  esac
done

bin=${CLUSTUNE_BIN:-build/bin}
for tool in clustune-partition clustune-measure clustune-worker; do
  [ -x "$bin/$tool" ] || { echo "error: $bin/$tool is missing: build first (cmake --build build)" >&2; exit 1; }
done
cpu=$(llc-19 --version | sed -n 's/^ *Host CPU: *//p')
[ -n "$cpu" ] || { echo "error: cannot tell the host CPU (llc-19 --version)" >&2; exit 1; }
if [ "$wide" = 1 ]; then
  dir=data/wide-cpu-$cpu
  passes=${passes:-10 50 100}
  max_records=${max_records:-250000}
  mkdir -p "$dir"
  scripts/wide_tasks.sh -o "$dir/tasks.jsonl"
else
  dir=data/cpu-$cpu
  passes=${passes:-10 50 300}
  max_records=${max_records:-100000}
  mkdir -p "$dir"
  "$bin/clustune-partition" models/*.onnx -q -o "$dir/tasks.jsonl"
fi
if [ ! -e "$dir/records.jsonl" ] && [ -e "$dir/records.jsonl.gz" ]; then
  gzip -dc "$dir/records.jsonl.gz" > "$dir/records.jsonl"
fi

start=$(date +%s)
for per_task in $passes; do
  budget_left=0
  if [ "$time_budget" != 0 ]; then
    budget_left=$(( time_budget - ($(date +%s) - start) ))
    [ "$budget_left" -gt 0 ] || break
  fi
  echo "pass: --per-task $per_task" >&2
  "$bin/clustune-measure" "$dir/tasks.jsonl" --target host --per-task "$per_task" --seed "$seed" \
    --max-records "$max_records" --time-budget "$budget_left" -o "$dir/records.jsonl" \
    | tee -a "$dir/passes.jsonl"
done

gzip -9 -n -c "$dir/records.jsonl" > "$dir/records.jsonl.gz.tmp"
mv "$dir/records.jsonl.gz.tmp" "$dir/records.jsonl.gz"
gzip -9 -n -c "$dir/tasks.jsonl" > "$dir/tasks.jsonl.gz"
scripts/dataset_summary.py "$dir/tasks.jsonl.gz" "$dir/records.jsonl.gz" > "$dir/summary.md"
head -n 20 "$dir/summary.md"
