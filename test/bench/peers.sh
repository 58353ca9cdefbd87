#!/usr/bin/env bash
# Builds and runs bench-peers (test/bench/peers.cpp): clustune's sampled and hand-picked
# schedules against Eigen, OpenBLAS and oneDNN on GEMM 512³, GEMM 1024³ and resnet50's
# convolutions, in one run, at the same thread counts. Needs the peer libraries
# (scripts/install-deps.sh --bench). Prints a table and JSON lines (stdout); progress on stderr.
# Usage: test/bench/peers.sh [--build-dir DIR] [bench-peers flags...]
#   e.g. test/bench/peers.sh --samples 64 --threads 2,1 --repeat 5 --cases gemm1024
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build="$root/build"
if [ "${1:-}" = "--build-dir" ]; then
  build="$2"
  shift 2
fi

if [ ! -f "$build/build.ninja" ] && [ ! -f "$build/Makefile" ]; then
  cmake -S "$root" -B "$build" -G Ninja
fi
# bench-peers exists only when CMake found the peer libraries.
if ! cmake --build "$build" --target bench-peers clustune-partition; then
  echo "error: bench-peers did not build; are the peer libraries installed (scripts/install-deps.sh --bench)?" >&2
  exit 1
fi

tasks=$(mktemp)
trap 'rm -f "$tasks"' EXIT
"$build/bin/clustune-partition" "$root/models/resnet50.onnx" -q > "$tasks"
"$build/bin/bench-peers" --tasks "$tasks" "$@"
