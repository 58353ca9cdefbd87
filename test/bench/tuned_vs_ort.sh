#!/usr/bin/env bash
# A corpus model (DCGAN by default, for issue 18's ConvTranspose) tuned by clustune against ONNX
# Runtime, two or more builds side by side (issue 18, items 4 and 6): each build tunes the
# model with --trials (same seed, the bundled cost models), then every round runs
# scripts/ort_compare.py once per build, in the reverse build order every second round, so
# that each line compares default schedules, tuned schedules and ONNX Runtime measured within
# one minute. Prints one line per round and build, then the median of each column per build.
# With --reuse-logs, a build whose OUT/LABEL.tune.jsonl exists is not tuned again (logs made
# elsewhere, by the same --trials, can be put there). Nothing here passes or fails.
#   test/bench/tuned_vs_ort.sh [--trials N] [--rounds N] [--repeat N] [--model NAME] \
#       [--out DIR] [--reuse-logs] LABEL=BINDIR[:LAYOUT[:TUNE_FLAGS]] [LABEL=...]
# BINDIR holds clustune-tune, clustune-run and clustune-worker; LAYOUT is the --layout the build
# tunes and runs with (NCHW by default; NCHW16c for the blocked layout); TUNE_FLAGS are more
# clustune-tune options, commas for spaces (e.g. nt=build/bin:NCHW16c:--no-transfer).
set -euo pipefail
cd "$(dirname "$0")/../.."

trials=320 rounds=3 repeat=50 model=dcgan out=experiments/tuned-vs-ort reuse=0
builds=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --trials) trials=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --model) model=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --reuse-logs) reuse=1; shift ;;
    -h|--help) sed -n 2,14p "$0"; exit 0 ;;
    *=*) builds+=("$1"); shift ;;
    *) echo "error: unknown argument '$1'" >&2; exit 1 ;;
  esac
done
[[ ${#builds[@]} -ge 1 ]] || { echo "error: name at least one LABEL=BINDIR" >&2; exit 1; }
mkdir -p "$out"

# LABEL=BINDIR[:LAYOUT[:TUNE_FLAGS]] into $label, $bin, $layout and the array $flags.
parse_build() {
  label=${1%%=*} bin=${1#*=} layout=NCHW flags=()
  if [[ $bin == *:* ]]; then layout=${bin#*:} bin=${bin%%:*}; fi
  if [[ $layout == *:* ]]; then
    IFS=, read -r -a flags <<< "${layout#*:}"
    layout=${layout%%:*}
  fi
}

for build in "${builds[@]}"; do
  parse_build "$build"
  if [[ $reuse == 1 && -s "$out/$label.tune.jsonl" ]]; then
    echo "$label: reusing $out/$label.tune.jsonl" >&2
    continue
  fi
  rm -f "$out/$label.tune.jsonl"
  "$bin/clustune-tune" "models/$model.onnx" --layout "$layout" --trials "$trials" --seed 0 -q \
    ${flags[@]+"${flags[@]}"} \
    -o "$out/$label.tune.jsonl" > "$out/$label.tune.summary.json"
  echo "$label: tuned $trials trials in $(jq .seconds "$out/$label.tune.summary.json") s," \
    "estimated $(jq .estimated_ms "$out/$label.tune.summary.json") ms" >&2
done

: > "$out/rounds.jsonl"
for ((round = 1; round <= rounds; round++)); do
  order=("${builds[@]}")
  if ((round % 2 == 0)); then
    order=()
    for ((k = ${#builds[@]} - 1; k >= 0; k--)); do order+=("${builds[k]}"); done
  fi
  for build in "${order[@]}"; do
    parse_build "$build"
    rm -f "$out/ort.jsonl"
    python3 scripts/ort_compare.py --models "$model" --latency --repeat "$repeat" --threads 2 \
      --layout "$layout" \
      --clustune-run "$bin/clustune-run" --log "$out/$label.tune.jsonl" --json "$out/ort.jsonl" \
      > /dev/null
    jq -c --arg name "$label" --argjson round "$round" '. + {build: $name, round: $round}' \
      "$out/ort.jsonl" >> "$out/rounds.jsonl"
  done
done

python3 - "$out/rounds.jsonl" <<'EOF'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
keys = ["default_ms", "clustune_ms", "ort_ms"]  # clustune_ms: with the tuned schedules
print("round build " + " ".join(keys) + " tuned/ort")
for row in rows:
    print(row["round"], row["build"], *[f"{row[k]:.3f}" for k in keys],
          f"{row['clustune_ms'] / row['ort_ms']:.2f}")
for build in dict.fromkeys(row["build"] for row in rows):
    mine = [row for row in rows if row["build"] == build]
    print("median", build, *[f"{statistics.median(r[k] for r in mine):.3f}" for k in keys],
          f"{statistics.median(r['clustune_ms'] / r['ort_ms'] for r in mine):.2f}")
EOF
