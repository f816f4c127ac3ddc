#!/usr/bin/env bash
# Measures the gate on this machine: A/A runs of one build (false alarms) and runs with a
# slowdown injected into every timed iteration (detection), then `rooftop gate-calibrate`
# adds the offline resampled comparisons and prints the table for docs/PERFORMANCE.md.
#
#   ci/calibrate-gate.sh ROOFTOP OUT_DIR [SUITE] [TIER] [A/A RUNS]
set -euo pipefail
rooftop=${1:?usage: ci/calibrate-gate.sh ROOFTOP OUT_DIR [SUITE] [TIER] [A/A RUNS]}
out=${2:?usage: ci/calibrate-gate.sh ROOFTOP OUT_DIR [SUITE] [TIER] [A/A RUNS]}
suite=${3:-gemm}
tier=${4:-quick}
runs=${5:-3}
mkdir -p "$out"
run() {  # run NAME [ENV=VALUE]
  local name=$1
  shift
  env "$@" "$rooftop" run --suite "$suite" --backend cpu --tier "$tier" --benchmark_enable_random_interleaving=true \
    --out "$out/$name.json" > "$out/$name.txt" 2>&1 || [ $? -eq 1 ]
}
aa=()
for i in $(seq 1 "$runs"); do
  run "aa$i" ROOFTOP_CALIBRATION=1
  aa+=("$out/aa$i.json")
done
injected=()
for s in 0.02 0.05 0.10; do
  run "slow$s" ROOFTOP_INJECT_SLOWDOWN=$s
  injected+=(--injected "$s=$out/slow$s.json")
done
"$rooftop" gate-calibrate --aa "${aa[@]}" "${injected[@]}" --comparisons 3000 --markdown "$out/calibration.md"
