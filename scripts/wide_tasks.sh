#!/usr/bin/env bash
# The tasks of the wider dataset (issue 15): the 13 corpus models at Tenset's shapes, partitioned
# by clustune-partition and merged into one tasks.jsonl on stdout or -o FILE.
#   - CNNs at batch 1, 4 and 8 and images of 224 and 256 (Inception v3: 299 and 320);
#   - the BERTs (models/dynamic/) at batch 1 and sequence lengths 64, 128 and 256;
#   - r3d_18 and DCGAN at batch 1 and 4.
# A task found at several shapes or in several models is one line; its `weights` add up the
# occurrences per corpus model over every shape, so that leave-one-model-out still holds out
# every shape of a model. The batch-1 default shapes give exactly the tasks of the shipped
# dataset (data/cpu-*/tasks.jsonl.gz).
#
#   scripts/wide_tasks.sh [-o tasks.jsonl]
set -euo pipefail
cd "$(dirname "$0")/.."

output=-
while [ $# -gt 0 ]; do
  case "$1" in
    -o) output="$2"; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "error: unknown argument '$1' (see --help)" >&2; exit 1 ;;
  esac
done
bin=${CLUSTUNE_BIN:-build/bin}
[ -x "$bin/clustune-partition" ] || { echo "error: $bin/clustune-partition is missing: build first" >&2; exit 1; }

parts=$(mktemp -d)
trap 'rm -rf "$parts"' EXIT
partition() { # name model shape...
  local name=$1 model=$2; shift 2
  "$bin/clustune-partition" "$model" -q --input-shape "$@" -o "$parts/$name.jsonl"
}
for model in resnet18 resnet50 resnext50_32x4d wide_resnet50_2 mobilenet_v2 mobilenet_v3_large \
             densenet121 inception_v3; do
  sizes="224 256"
  [ "$model" = inception_v3 ] && sizes="299 320"
  for batch in 1 4 8; do
    for size in $sizes; do
      partition "$model-b$batch-s$size" "models/$model.onnx" "input=${batch}x3x${size}x${size}"
    done
  done
done
for model in bert-tiny bert-base bert-large; do
  for length in 64 128 256; do
    partition "$model-s$length" "models/dynamic/$model.onnx" "input_ids=1x$length" \
      "attention_mask=1x$length"
  done
done
for batch in 1 4; do
  partition "r3d_18-b$batch" models/r3d_18.onnx "input=${batch}x3x16x112x112"
  partition "dcgan-b$batch" models/dcgan.onnx "input=${batch}x100x1x1"
done

python3 - "$parts" "$output" <<'PY'
import glob, json, os, sys
folder, output = sys.argv[1], sys.argv[2]
tasks = {}
for path in sorted(glob.glob(os.path.join(folder, "*.jsonl"))):
    for line in open(path):
        task = json.loads(line)
        merged = tasks.setdefault(task["key"], task)
        if merged is not task:
            for model, count in task["weights"].items():
                merged["weights"][model] = merged["weights"].get(model, 0) + count
            merged["weight"] = sum(merged["weights"].values())
lines = "".join(json.dumps(tasks[key], separators=(",", ":")) + "\n" for key in sorted(tasks))
if output == "-":
    sys.stdout.write(lines)
else:
    with open(output, "w") as f:
        f.write(lines)
print(f"{len(tasks)} tasks from {len(glob.glob(os.path.join(folder, '*.jsonl')))} shapes",
      file=sys.stderr)
PY
