#!/usr/bin/env bash
# The README's test command: installs missing Debian packages, configures and builds with CMake
# into build/, and runs every unit and tool test through ctest (whose closing summary line is
# the result). Extra arguments are passed to ctest.
#
# --sanitize builds into build-sanitize/ with AddressSanitizer (leaks included) and
# UndefinedBehaviorSanitizer (CLUSTUNE_SANITIZE) and runs the same tests under them; any report
# fails its test. It is not part of CI: a cold build takes about three times as long.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
options=(-DCLUSTUNE_WERROR=ON)
if [ "${1:-}" = "--sanitize" ]; then
  shift
  build=build-sanitize
  options=(-DCLUSTUNE_SANITIZE=ON)
fi
scripts/install-deps.sh
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${options[@]}"
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" -j "$(nproc)" --output-on-failure "$@"
