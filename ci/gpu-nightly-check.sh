#!/usr/bin/env bash
# The nightly on a lent GPU, several nights in one call (docs/gate.md, "A real GPU nightly"):
# ci/nightly.sh with the bundle's binary, the rolling baseline in a fresh history, the GEMM
# quick tier in bf16 (18 GEMMs: the issue's nightly). Nights 1-3 and 5 unchanged; nights 4 and
# 6 with 5% injected into 4 GEMMs (ROOFTOP_INJECT_SLOWDOWN). Then, until INFERENCE_UNTIL
# seconds, A/A runs of the inference quick tier in bf16 (a suite of its own: its scenario
# loop runs alone), for the calibration on real nights. Each night's results, gate JSON and
# Markdown come back in one tarball.
#
# usage: ci/gpu-nightly-check.sh BUNDLE.tar.gz [SECONDS] [INFERENCE_UNTIL]
#   SECONDS: start no night after this long (default 500); INFERENCE_UNTIL: default 0 (none)
#   NIGHTS (default 6) nights, INJECT_NIGHTS (default "4 6") of them with the 5% injected
set -uo pipefail
bundle=${1:?usage: gpu-nightly-check.sh BUNDLE.tar.gz [SECONDS]}
budget=${2:-500}
out=${OUT:-$PWD/gpu-out}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out/nightly" /tmp/rooftop-bundle
tar -C /tmp/rooftop-bundle -xf "$bundle"  # gzip or xz
bin=$(echo /tmp/rooftop-bundle/rooftop-*/bin)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv
export ROOFTOP_NIGHTLY_BIN=$bin/rooftop ROOFTOP_NIGHTLY_BACKENDS=cuda ROOFTOP_NIGHTLY_TIER=quick
export ROOFTOP_NIGHTLY_RUN_ARGS="--suite gemm --dtype bf16" ROOFTOP_NIGHTLY_CHARACTERIZE_ARGS="--quick"
export ROOFTOP_HISTORY=/tmp/rooftop-history/history.sqlite ROOFTOP_HOME=/tmp/rooftop-home
slowed='gemm/cuda/bf16/(m4096_n4096_k4096|m1_n4096_k4096|m128_n14336_k4096|m16_n6144_k4096)$'
start=$(date +%s)
for night in $(seq 1 "${NIGHTS:-6}"); do
  [ $(( $(date +%s) - start )) -lt "$budget" ] || break
  inject=()
  case " ${INJECT_NIGHTS:-4 6} " in *" $night "*) inject=(ROOFTOP_INJECT_SLOWDOWN=0.05 "ROOFTOP_INJECT_SLOWDOWN_MATCH=$slowed" ROOFTOP_NIGHTLY_ALLOW_INJECTED=1) ;; esac
  t0=$(date +%s)
  env "${inject[@]}" bash "$root/ci/nightly.sh" nightly "/tmp/night$night" > "$out/nightly/night$night.log" 2>&1
  code=$?
  echo "night $night (${inject[*]:-unchanged}): nightly exit $code in $(( $(date +%s) - t0 )) s"
  grep -E "^nightly:|gate: " "$out/nightly/night$night.log" | cut -c1-200
  for f in results-cuda.json gate-cuda.json gate-cuda.md rerun-cuda.json; do
    [ -f "/tmp/night$night/$f" ] && cp "/tmp/night$night/$f" "$out/nightly/night$night-$f"
  done
done
run=0
while [ $(( $(date +%s) - start )) -lt "${3:-0}" ]; do
  run=$((run + 1))
  t0=$(date +%s)
  "$bin/rooftop" run --suite inference --backend cuda --tier quick --dtype bf16 \
    --out "$out/nightly/inference$run.json" > "$out/nightly/inference$run.log" 2>&1
  echo "inference A/A run $run: exit $? in $(( $(date +%s) - t0 )) s"
done
tar -C "$out" -czf "$out/gpu-nightly.tar.gz" nightly
rm -rf "$out/nightly"
