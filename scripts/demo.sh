#!/usr/bin/env bash
# The README's first command: builds clustune and runs the main job on the embedded default,
# partitioning the bundled ResNet-50 and printing its task summary. (Once the tuner lands, this
# tunes the model with the bundled cost models instead.)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" --target clustune-partition
build/bin/clustune-partition models/resnet50.onnx --summary "$@"
