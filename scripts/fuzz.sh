#!/usr/bin/env bash
# Long libFuzzer campaigns over clustune's readers (issue 16). Configures build-fuzz with Clang
# (ASan + UBSan + libFuzzer, -DCLUSTUNE_FUZZ=ON), builds the harnesses of test/fuzz and runs each
# until it has executed --runs inputs or spent --seconds, one after the other. The corpus a run
# grows and anything it finds (crash-*, leak-*, timeout-*, oom-*) stay in OUT/<harness>/. Prints
# one JSON line per harness; exits 1 when any harness found something.
#   scripts/fuzz.sh [--runs N] [--seconds S] [--out DIR] [HARNESS...]
# Needs clang-19 and libclang-rt-19-dev (scripts/install-deps.sh --fuzz).
set -euo pipefail
cd "$(dirname "$0")/.."

runs=1000000 seconds=3600 out=experiments/fuzz
harnesses=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n 2,8p "$0"; exit 0 ;;
    -*) echo "error: unknown option '$1'" >&2; exit 1 ;;
    *) harnesses+=("$1"); shift ;;
  esac
done
if [[ ${#harnesses[@]} -eq 0 ]]; then
  for source in test/fuzz/*.cpp; do
    name=$(basename "$source" .cpp)
    [[ $name == FuzzInput ]] || harnesses+=("$name")
  done
fi
for name in "${harnesses[@]}"; do
  [[ -f test/fuzz/$name.cpp ]] || { echo "error: no harness test/fuzz/$name.cpp" >&2; exit 1; }
done

cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang-19 \
  -DCMAKE_CXX_COMPILER=clang++-19 -DCLUSTUNE_FUZZ=ON > /dev/null
ninja -C build-fuzz "${harnesses[@]/#/fuzz-}" > /dev/null

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores" >&2
found_any=0
for name in "${harnesses[@]}"; do
  work=$out/$name
  mkdir -p "$work/corpus" "$work/findings"
  seeds=()
  [[ -d test/fuzz/corpus/$name ]] && seeds+=(test/fuzz/corpus/"$name")
  start=$(date +%s)
  status=0
  build-fuzz/bin/fuzz-"$name" -runs="$runs" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$work/findings/" \
    "$work/corpus" "${seeds[@]}" > "$work/log.txt" 2>&1 || status=$?
  executions=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$work/log.txt" | awk '{print $2}')
  findings=$(find "$work/findings" -type f | wc -l)
  ((findings > 0 || status != 0)) && found_any=1
  echo "{\"harness\":\"$name\",\"executions\":${executions:-0},\"seconds\":$(($(date +%s) - start)),\"corpus\":$(find "$work/corpus" -type f | wc -l),\"findings\":$findings,\"exit\":$status}"
done
exit $found_any
