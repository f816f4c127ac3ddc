#!/usr/bin/env bash
# Issue 42, first step, on the GPU machine given a bundle (ci/make-bundle.sh) of main:
#   1. the inference GPU tests (the GEMV's RMSNorm prologue against the norm kernel then the
#      GEMV; the fused decoder against the double-precision reference, eager and graph);
#   2. decode B = 1 at context 512, the separate-kernel step beside ':fused', for the 1B and
#      the 8B, in one run (repetitions 10), the device characterized first.
# usage: OUT=/some/dir docs/results/issue42/call-fused.sh rooftop-*.tar.[gx]z
set -u
out=${OUT:-$PWD/out}; mkdir -p "$out" /tmp/b
tar -C /tmp/b -xf "$1"; bin=$(echo /tmp/b/rooftop-*/bin)
export ROOFTOP_HOME=/tmp/rooftop-home
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader | tee "$out/gpu.txt"
timeout 300 "$bin/rooftop_gpu_tests" "inference*" --durations yes > "$out/gpu-tests-inference.txt" 2>&1
echo "inference tests exit $?"; grep -E " s: |passed|failed|FAILED" "$out/gpu-tests-inference.txt" | tail -12
"$bin/rooftop" characterize --backend cuda > "$out/characterize.txt" 2>&1 || echo "characterize exit $?"
shapes=""
for m in llama-3.2-1b llama-3.1-8b; do shapes+="$m:decode:1x512,$m:decode:1x512:fused,"; done
timeout 400 "$bin/rooftop" run --backend cuda --suite inference --dtype bf16 --repetitions 10 --shape "${shapes%,}" \
  --out "$out/decode-fused.json" > "$out/decode-fused.log" 2>&1
echo "decode run exit $?"; grep -E "_c512|rooftop:" "$out/decode-fused.log" | cut -c1-150 | tail -12
