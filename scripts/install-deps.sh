#!/usr/bin/env bash
# Installs the Debian packages that clustune's build and tests need. Non-interactive and
# idempotent: when every package is already present it changes nothing and prints one line.
# Python packages (torch, onnx, ...) are only needed by scripts/ and are not installed here.
# Usage: scripts/install-deps.sh [--bench] [--fuzz]
#   --bench  also installs the peer libraries of test/bench/peers.sh (OpenBLAS, oneDNN), which
#            the build and the tests never need.
#   --fuzz   also installs Clang and its libFuzzer and sanitizer runtimes for test/fuzz
#            (scripts/fuzz.sh).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  llvm-19-dev llvm-19-tools libzstd-dev libedit-dev libffi-dev libxml2-dev zlib1g-dev
  libonnx-dev libonnx-testdata libprotobuf-dev protobuf-compiler
  libeigen3-dev libcli11-dev libspdlog-dev libfmt-dev nlohmann-json3-dev
  libjemalloc-dev libgtest-dev libgmock-dev
  python3 jq
)

for argument in "$@"; do
  case "$argument" in
    --bench) packages+=(libopenblas-dev libdnnl-dev) ;;
    --fuzz) packages+=(clang-19 libclang-rt-19-dev) ;;
    *) echo "error: unknown argument '$argument' (--bench and --fuzz are known)" >&2; exit 1 ;;
  esac
done

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_prefix=()
if [ "$(id -u)" -ne 0 ]; then sudo_prefix=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_prefix[@]}" apt-get update -qq
"${sudo_prefix[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
