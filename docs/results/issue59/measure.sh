#!/usr/bin/env bash
# The bf16 paths of each CPU class on one machine, its ISA capped (issue 59; docs/build.md,
# "CPUs"): bash docs/results/issue59/measure.sh ROOFTOP OUT_DIR
set -euo pipefail
rooftop=$1 out=$2
mkdir -p "$out"
for cap in AVX2 AVX512_CORE ALL; do
  export ONEDNN_MAX_CPU_ISA=$cap ROOFTOP_MAX_CPU_ISA=$cap
  "$rooftop" run --suite gemm --dtype bf16 --shape 2048x2048x2048,16x4096x4096,1x4096x4096 --repetitions 5 \
    --out "$out/gemm-$cap.json" --wide > "$out/gemm-$cap.txt" 2>&1
  "$rooftop" run --suite attention --dtype bf16 --shape prefill:1x8x2x1024x128:causal,decode:1x32x8x4096x128 \
    --repetitions 5 --out "$out/attention-$cap.json" --wide > "$out/attention-$cap.txt" 2>&1
  "$rooftop" run --suite inference --dtype bf16 --tier quick --filter decode --repetitions 5 \
    --out "$out/inference-$cap.json" --wide > "$out/inference-$cap.txt" 2>&1
done
