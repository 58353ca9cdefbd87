#!/usr/bin/env bash
# Issue 17's checks on the GPU device machine. That machine has CUDA and PyTorch but none of
# Debian's libraries, so the tools come as the archive that scripts/gpu_bundle.sh builds here
# (carry `bundle`):
#
#   run: GPU_CHECK_SECONDS=420 bash scripts/gpu_check.sh [STEP...]   (carry: ["bundle"])
#
# Steps, in this order (default: all of them):
#   unit     the bundle starts, and the GPU unit tests pass (the driver, measurement on the GPU);
#   run      clustune-run --check on resnet50, bert-base and mobilenet_v2 with the default GPU
#            schedules (latency by CUDA events, outputs against the CPU's reference);
#   jit      measurement throughput, side by side: resnet50's tasks with the driver compiling
#            each module's PTX in the GPU worker (CLUSTUNE_PTXAS=none), then with ptxas on the
#            build cores (codegen/cuda/Ptxas.h);
#   tune-bert  clustune-tune on the GPU: bert-base (checked), then clustune-run --check with its log;
#   tune     clustune-tune on the GPU: GEMM 4096^3 (--no-check: its CPU reference would take
#            minutes), then resnet50 (checked), then clustune-run --check with both logs;
#   measure  clustune-measure: 20 sampled GPU schedules of each resnet50 task;
#   gemm     GEMM 1024^3 sampled and checked, GEMM 4096^3 sampled and timed;
#   peers    scripts/gpu_peers.py: cuBLAS, cuDNN and PyTorch eager on the same cases, and the
#            table.
# TUNE_SECONDS (default 90) and GEMM_TUNE_SECONDS (30) are the tuning time budgets. With
# RESUME=DIR, the record and run files of an earlier call (its results.tar.gz, unpacked) are
# copied in first: tuning resumes their logs, and the table keeps their other columns.
# GPU_CHECK_SECONDS (default 420) bounds the whole script: every step's own limit is cut to what
# is left of it, so that a device call's timeout_s of GPU_CHECK_SECONDS + 30 always returns the
# logs. What it leaves in $OUT (or gpu-out/): gpu_check.log, table.md, and results.tar.gz (run.jsonl,
# tuned-run.jsonl, r50.tasks.jsonl, r50.records.jsonl, gemm1024.records.jsonl,
# gemm4096.records.jsonl, tune.records.jsonl, tune.curve.jsonl, tune.gemm4096.records.jsonl,
# peers.jsonl: one archive, since a device call returns at most 8 files), rewritten after every
# step. Commit them under data/gpu/.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/gpu-out}
mkdir -p "$out"
exec > >(tee -a "$out/gpu_check.log") 2>&1
final=$(($(date +%s) + ${GPU_CHECK_SECONDS:-420}))
deadline=$final
steps=" ${*:-unit run jit tune-bert tune measure gemm peers} "
wants() { [[ $steps == *" $1 "* ]]; }
# The peers need no clustune tool and take about 25 s: the steps before them leave them 40.
wants peers && deadline=$((final - 40))
step() { echo "== $(date +%T) $*"; }
# bounded SECONDS COMMAND...: runs COMMAND for at most SECONDS, or what is left before the
# deadline, and says how it ended when it failed.
bounded() {
  local seconds=$1 left=$((deadline - $(date +%s)))
  shift
  ((left < seconds)) && seconds=$left
  if ((seconds < 5)); then
    echo "skipped (no time left): $1" >&2
    return 124
  fi
  timeout -k 5 "$seconds" "$@"
  local rc=$?
  ((rc == 0)) || echo "exit $rc after at most ${seconds}s: $*" >&2
  return $rc
}
work=$(mktemp -d)
res=$work/results
mkdir -p "$res"
save() { tar -C "$res" -czf "$out/results.tar.gz" . && cp "$res"/table.md "$out"/ 2>/dev/null; }

step "machine; steps:$steps"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.total --format=csv
lscpu | grep -E 'Model name|^CPU\(s\)'
echo "ptxas: $(command -v ptxas || ls /usr/local/cuda/bin/ptxas 2>/dev/null || echo none)"
step "unpack $(wc -c <"$root/bundle/clustune-bundle.tar.xz") bytes"
python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
  "$root/bundle/clustune-bundle.tar.xz" "$work" || exit 1
bin=$work/clustune/bin
echo "bundle of commit $(cat "$work/clustune/COMMIT")"
export CLUSTUNE_LIBDEVICE=$work/clustune/share/libdevice.10.bc
h200=$root/configs/targets/nvidia-h200.json
jobs=$(nproc)
models="resnet50 bert-base mobilenet_v2"
tune_seconds=${TUNE_SECONDS:-90}
gemm_tune_seconds=${GEMM_TUNE_SECONDS:-30}
if [[ -n ${RESUME:-} ]]; then
  cp "$root/$RESUME"/*.jsonl "$res"/ || exit 1
  echo "resuming from $RESUME: $(ls "$res" | tr '\n' ' ')"
fi
"$bin/clustune-partition" -q "$root/models/resnet50.onnx" -o "$work/r50.tasks.jsonl"
cp "$work/r50.tasks.jsonl" "$res/r50.tasks.jsonl"
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

save
if wants unit; then
  step "the bundle starts; GPU unit tests"
  "$bin/clustune-run" --help | head -2
  bounded 45 "$bin/clustune-unit-tests" --gtest_brief=1 \
    --gtest_filter='CudaDriver*:GpuMeasure*:WorkerProtocol*:Runner*'
fi

save
if wants run; then
  step "whole models on the GPU, default schedules, checked"
  for model in $models; do
    bounded 50 "$bin/clustune-run" "$root/models/$model.onnx" --target "$h200" --check \
      --per-task --repeat 20 --threads "$jobs" --json -q >>"$res/run.jsonl"
  done
  cut -c1-400 "$res/run.jsonl"
fi

save
if wants jit; then
  step "measurement throughput: the driver's JIT, then ptxas on the build cores"
  for ptxas in none ""; do
    CLUSTUNE_PTXAS=$ptxas bounded 40 "$bin/clustune-measure" "$work/r50.tasks.jsonl" \
      --target "$h200" --per-task 4 --jobs "$jobs" --time-budget 25 --seed 2 \
      -o "$res/jit-${ptxas:-ptxas}.records.jsonl" -q
  done
fi

save
if wants tune-bert; then
  step "tuning bert-base on the GPU"
  bounded $((tune_seconds + 40)) "$bin/clustune-tune" "$root/models/bert-base.onnx" \
    --target "$h200" --mode online --trials 4096 --per-round 32 --time-budget "$tune_seconds" \
    --min-repeat-ms 2 --jobs "$jobs" --seed 1 -o "$res/tune.bert-base.records.jsonl" \
    --curve "$res/tune.bert-base.curve.jsonl" -q
  bounded 50 "$bin/clustune-run" "$root/models/bert-base.onnx" --target "$h200" --check \
    --log "$res/tune.bert-base.records.jsonl" --per-task --repeat 20 --threads "$jobs" --json \
    -q >>"$res/tuned-run.jsonl"
  tail -1 "$res/tuned-run.jsonl" | cut -c1-400
fi

save
if wants tune; then
  step "tuning on the GPU: GEMM 4096^3, then resnet50"
  bounded $((gemm_tune_seconds + 20)) "$bin/clustune-tune" --tasks "$work/gemm4096.tasks.jsonl" \
    --target "$h200" --mode online --trials 4096 --per-round 32 \
    --time-budget "$gemm_tune_seconds" --min-repeat-ms 2 --no-check --jobs "$jobs" --seed 1 \
    -o "$res/tune.gemm4096.records.jsonl" -q
  bounded $((tune_seconds + 40)) "$bin/clustune-tune" "$root/models/resnet50.onnx" \
    --target "$h200" --mode online --trials 4096 --per-round 32 --time-budget "$tune_seconds" \
    --min-repeat-ms 2 --jobs "$jobs" --seed 1 -o "$res/tune.records.jsonl" \
    --curve "$res/tune.curve.jsonl" -q
  step "tuned whole models, checked"
  bounded 50 "$bin/clustune-run" "$root/models/resnet50.onnx" --target "$h200" --check \
    --log "$res/tune.records.jsonl" --per-task --repeat 20 --threads "$jobs" --json -q \
    >>"$res/tuned-run.jsonl"
  bounded 45 "$bin/clustune-run" "$work/gemm4096.onnx" --target "$h200" --check \
    --log "$res/tune.gemm4096.records.jsonl" --repeat 20 --threads "$jobs" --json -q \
    >>"$res/tuned-run.jsonl"
  tail -2 "$res/tuned-run.jsonl" | cut -c1-400
fi

save
if wants measure; then
  step "resnet50: 20 sampled GPU schedules per task"
  bounded 60 "$bin/clustune-measure" "$work/r50.tasks.jsonl" --target "$h200" --per-task 20 \
    --jobs "$jobs" --time-budget 40 --seed 1 -o "$res/r50.records.jsonl" -q
fi

save
if wants gemm; then
  step "GEMM on the GPU: 1024^3 checked, 4096^3 timed"
  bounded 30 "$bin/clustune-measure" "$work/gemm1024.tasks.jsonl" --target "$h200" \
    --per-task 10 --jobs "$jobs" --seed 1 -o "$work/gemm1024.records.jsonl" -q
  bounded 40 "$bin/clustune-measure" "$work/gemm4096.tasks.jsonl" --target "$h200" \
    --per-task 20 --jobs "$jobs" --time-budget 25 --seed 1 --no-check \
    -o "$work/gemm4096.records.jsonl" -q
  cp "$work"/gemm*.records.jsonl "$res"/ 2>/dev/null
fi

save
if wants peers; then
  deadline=$final
  step "peers: cuBLAS, cuDNN, PyTorch eager"
  PYTHONUNBUFFERED=1 bounded 100 python3 "$root/scripts/gpu_peers.py" \
    --tasks "$work/r50.tasks.jsonl" --records "$res/r50.records.jsonl" \
    --tuned-records "$res/tune.records.jsonl" --gemm-records "$res/gemm4096.records.jsonl" \
    --tuned-gemm-records "$res/tune.gemm4096.records.jsonl" --runs "$res/run.jsonl" \
    --tuned-runs "$res/tuned-run.jsonl" --json "$res/peers.jsonl" --table "$res/table.md"
fi
save
step "done"
