#!/usr/bin/env bash
# The README's first command: builds clustune and runs the main job on the embedded default,
# the bundled ResNet-50: partition it into tuning tasks and print the task table, then compile
# every task (default schedules; no tuning yet) and run the whole model, printing its latency.
# Once the tuner lands, this tunes the model with the bundled cost models instead.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" --target clustune-partition clustune-run clustune-worker
build/bin/clustune-partition models/resnet50.onnx --summary "$@"
build/bin/clustune-run models/resnet50.onnx --threads "$(nproc)" --repeat 5 -q
