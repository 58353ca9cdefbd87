#!/usr/bin/env bash
# The README's test command: installs missing Debian packages, configures and builds with CMake
# into build/, and runs every unit and tool test through ctest (whose closing summary line is
# the result). Extra arguments are passed to ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCLUSTUNE_WERROR=ON
cmake --build build -j "$(nproc)"
ctest --test-dir build -j "$(nproc)" --output-on-failure "$@"
