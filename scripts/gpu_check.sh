#!/usr/bin/env bash
# Issue 17's checks on the GPU device machine, in one call of under 8 minutes. That machine has
# CUDA and PyTorch but none of Debian's libraries, so the tools come as the archive that
# scripts/gpu_bundle.sh builds here (carry `bundle`):
#
#   run: bash scripts/gpu_check.sh          (carry: ["bundle"], timeout_s: 540)
#
# 1. The bundle starts there, and the GPU unit tests pass (the driver, measurement on the GPU).
# 2. clustune-run --check on resnet50, bert-base and mobilenet_v2 on the GPU (latency by CUDA
#    events, outputs against the CPU's reference).
# 3. clustune-measure: 20 sampled GPU schedules of each resnet50 task; GEMM 1024^3 checked and
#    GEMM 4096^3 timed (its CPU reference would take minutes).
# 4. scripts/gpu_peers.py: cuBLAS, cuDNN and PyTorch eager on the same cases, and the table.
# Everything lands in $OUT (or gpu-out/): gpu_check.log, run.jsonl, r50.records.jsonl,
# r50.tasks.jsonl, gemm.records.jsonl, peers.jsonl, table.md. Commit them under data/gpu/.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/gpu-out}
mkdir -p "$out"
exec > >(tee -a "$out/gpu_check.log") 2>&1
step() { echo "== $(date +%T) $*"; }
work=$(mktemp -d)

step "machine"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.total --format=csv
lscpu | grep -E 'Model name|^CPU\(s\)'
step "unpack $(cat "$root/bundle/clustune-bundle.tar.xz" | wc -c) bytes"
python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
  "$root/bundle/clustune-bundle.tar.xz" "$work" || exit 1
bin=$work/clustune/bin
echo "bundle of commit $(cat "$work/clustune/COMMIT")"
export CLUSTUNE_LIBDEVICE=$work/clustune/share/libdevice.10.bc
h200=$root/configs/targets/nvidia-h200.json
jobs=$(nproc)

step "the bundle starts"
"$bin/clustune-run" --help | head -2 || exit 1
step "GPU unit tests"
timeout 120 "$bin/clustune-unit-tests" --gtest_brief=1 \
  --gtest_filter='CudaDriver*:GpuMeasure*:WorkerProtocol*:Runner*'

step "whole models on the GPU, checked"
for model in resnet50 bert-base mobilenet_v2; do
  timeout 150 "$bin/clustune-run" "$root/models/$model.onnx" --target "$h200" --check \
    --repeat 20 --threads "$jobs" --json -q >>"$out/run.jsonl" ||
    echo "clustune-run $model failed: exit $?"
done
cat "$out/run.jsonl"

step "resnet50: 20 sampled GPU schedules per task"
"$bin/clustune-partition" -q "$root/models/resnet50.onnx" -o "$work/r50.tasks.jsonl"
cp "$work/r50.tasks.jsonl" "$out/r50.tasks.jsonl"
timeout 200 "$bin/clustune-measure" "$work/r50.tasks.jsonl" --target "$h200" --per-task 20 \
  --jobs "$jobs" --time-budget 150 --seed 1 -o "$out/r50.records.jsonl" -q

step "GEMM on the GPU"
python3 - "$work" <<'PY'
import sys, onnx
from onnx import TensorProto, helper
for n in (1024, 4096):
    a = helper.make_tensor_value_info("A", TensorProto.FLOAT, [n, n])
    b = helper.make_tensor_value_info("B", TensorProto.FLOAT, [n, n])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, [n, n])
    graph = helper.make_graph([helper.make_node("MatMul", ["A", "B"], ["Y"])], f"gemm{n}", [a, b], [y])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
              f"{sys.argv[1]}/gemm{n}.onnx")
PY
for n in 1024 4096; do
  "$bin/clustune-partition" -q "$work/gemm$n.onnx" -o "$work/gemm$n.tasks.jsonl"
done
timeout 60 "$bin/clustune-measure" "$work/gemm1024.tasks.jsonl" --target "$h200" --per-task 10 \
  --jobs "$jobs" --seed 1 -o "$work/gemm1024.records.jsonl" -q
timeout 90 "$bin/clustune-measure" "$work/gemm4096.tasks.jsonl" --target "$h200" --per-task 20 \
  --jobs "$jobs" --time-budget 60 --seed 1 --no-check -o "$work/gemm4096.records.jsonl" -q
cat "$work/gemm1024.records.jsonl" "$work/gemm4096.records.jsonl" >"$out/gemm.records.jsonl"

step "peers: cuBLAS, cuDNN, PyTorch eager"
timeout 120 python3 "$root/scripts/gpu_peers.py" --tasks "$work/r50.tasks.jsonl" \
  --records "$out/r50.records.jsonl" --gemm-records "$work/gemm4096.records.jsonl" \
  --runs "$out/run.jsonl" --json "$out/peers.jsonl" --table "$out/table.md"
step "done"
