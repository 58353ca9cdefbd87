# Sourced by the benchmarks that run two or more builds side by side (measure_throughput.sh,
# tune_throughput.sh, vector_math.sh): the machine line every figure needs, and the order of
# the builds in each round.

machine_line() {
  echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores;" \
    "$(llc-19 --version 2>/dev/null | grep 'Host CPU' | sed 's/^ *//')"
}

# round_order ROUND BUILD...: the builds, one per line, in the order round ROUND runs them.
# Even rounds reverse the order: on a VM the build measured first in a pair can run faster.
round_order() {
  local round=$1
  shift
  local builds=("$@") i
  if ((round % 2 == 0)); then
    for ((i = ${#builds[@]} - 1; i >= 0; i--)); do echo "${builds[i]}"; done
  else
    printf '%s\n' "${builds[@]}"
  fi
}
