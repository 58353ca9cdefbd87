#!/usr/bin/env bash
# Training speed of clustune-train's global MLP (issue 14): programs per second per epoch and
# the time to read and featurise the records, at several dataset sizes (the first N records of
# the shipped dataset; "all" is every record). Each size trains for a fixed number of epochs
# (no early stopping), so that sizes compare per epoch. Prints one JSON line per size; nothing
# here passes or fails.
#   test/bench/train_throughput.sh [--epochs N] [--sizes 25000,all] [--bin DIR] [--out DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."

epochs=3 sizes=25000,all bin=build/bin out=experiments/train-throughput
while [[ $# -gt 0 ]]; do
  case "$1" in
    --epochs) epochs=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n 2,7p "$0"; exit 0 ;;
    *) echo "error: unknown argument '$1'" >&2; exit 1 ;;
  esac
done
mkdir -p "$out"
zcat data/cpu-znver5/tasks.jsonl.gz > "$out/tasks.jsonl"
zcat data/cpu-znver5/records.jsonl.gz > "$out/all.jsonl"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores" >&2
for size in ${sizes//,/ }; do
  records="$out/all.jsonl"
  if [[ $size != all ]]; then
    records="$out/first-$size.jsonl"
    head -n "$size" "$out/all.jsonl" > "$records"
  fi
  start=$(date +%s.%N)
  "$bin/clustune-train" "$records" --tasks "$out/tasks.jsonl" -o "$out/cm-$size" --mode global \
    --epochs "$epochs" --patience "$epochs" --seed 0 > "$out/summary-$size.json" 2> "$out/log-$size.txt"
  wall=$(echo "$(date +%s.%N) - $start" | bc)
  python3 - "$size" "$wall" "$out/summary-$size.json" "$out/log-$size.txt" <<'EOF'
import json, re, statistics, sys
size, wall, summary, log = sys.argv[1], float(sys.argv[2]), json.load(open(sys.argv[3])), open(sys.argv[4]).read()
model = summary["models"][0]
rates = [float(m) for m in re.findall(r"epoch +\d+: .*?, ([0-9.]+) programs/s\)", log)]
statements = re.search(r"\(([0-9.]+) statements per program\)", log)
print(json.dumps({"bench": "train_throughput", "size": size, "records": summary["data"]["record_count"],
                  "programs": model["programs"], "statements_per_program": float(statements.group(1)) if statements else None,
                  "epochs": model["epochs"], "programs_per_second_median": statistics.median(rates) if rates else None,
                  "training_seconds": model["seconds"], "wall_seconds": round(wall, 1),
                  "read_and_featurise_seconds": round(wall - model["seconds"], 1),
                  "validation_loss": model["validation_loss"]}))
EOF
done
