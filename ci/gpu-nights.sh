#!/usr/bin/env bash
# A/A "nights" on a lent GPU, for the gate's calibration on real noise (docs/gate.md,
# "Calibration on real nights"): the GEMM (bf16), attention and inference quick tiers, each
# night a fresh process per suite, as a nightly runs them; nights go on until the time budget
# is spent. Each night's results go under $OUT/nights/ and are packed into one tarball (the
# device tool returns at most 8 files).
#
# usage: ci/gpu-nights.sh BUNDLE.tar.gz [SECONDS]
#   SECONDS: stop starting nights after this long (default 420)
# Environment: NIGHT_SUITES (default "gemm attention inference"), NIGHT_PREFIX (file names).
set -uo pipefail
bundle=${1:?usage: gpu-nights.sh BUNDLE.tar.gz [SECONDS]}
budget=${2:-420}
out=${OUT:-$PWD/gpu-out}
prefix=${NIGHT_PREFIX:-night}
mkdir -p "$out/nights" /tmp/rooftop-bundle
export ROOFTOP_HOME=/tmp/rooftop-home
tar -C /tmp/rooftop-bundle -xf "$bundle"  # gzip or xz
bin=$(echo /tmp/rooftop-bundle/rooftop-*/bin)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv
start=$(date +%s)
"$bin/rooftop" characterize --backend cuda --quick > "$out/nights/characterize.txt" 2>&1 || echo "characterize exit $?"
night=0
while [ $(( $(date +%s) - start )) -lt "$budget" ]; do
  night=$((night + 1))
  for suite in ${NIGHT_SUITES:-gemm attention inference}; do
    args=(--suite "$suite" --backend cuda --tier quick)
    [ "$suite" = gemm ] && args+=(--dtype bf16)
    [ "$suite" != inference ] && args+=(--benchmark_enable_random_interleaving=true)
    t0=$(date +%s)
    "$bin/rooftop" run "${args[@]}" --out "$out/nights/$prefix$night-$suite.json" > "$out/nights/$prefix$night-$suite.log" 2>&1
    echo "night $night $suite: exit $? in $(( $(date +%s) - t0 )) s"
  done
done
tar -C "$out" -czf "$out/$prefix-results.tar.gz" nights
rm -rf "$out/nights"
