#!/usr/bin/env bash
# Issue 35, the last merge: Llama 3.x rope scaling computed (ModelConfig::rope_inverse_frequencies
# feeds the CUDA decoder's rope table too). The inference GPU tests, the shipped configs (now
# with their llama3 scaling) and transformers' two tiny checkpoints on the CUDA decoder, each
# point checked against the double-precision reference.
set -u
out=${OUT:-$PWD/out}; mkdir -p "$out" /tmp/b
tar -C /tmp/b -xzf "$1"; bin=$(echo /tmp/b/rooftop-*/bin); fixtures=$2
export ROOFTOP_HOME=/tmp/rooftop-home NCCL_NVLS_ENABLE=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
"$bin/rooftop_gpu_tests" "inference*" --durations yes > "$out/gpu-tests-inference-rope.txt" 2>&1; echo "gpu tests exit $?"
grep -E "passed|failed" "$out/gpu-tests-inference-rope.txt"
"$bin/rooftop" run --suite inference --backend cuda --repetitions 3 \
  --shape "$fixtures/llama-llama3rope:decode:1x16,$fixtures/llama-plain:decode:2x16,$fixtures/llama-llama3rope:generate:1x40x24,llama-3.2-1b:decode:1x512,llama-3.1-8b:decode:1x512" \
  --out "$out/rope-points.json" > "$out/rope-points.log" 2>&1; echo "run exit $?"
grep -E "ok$|failed|error|rooftop:" "$out/rope-points.log" | cut -c1-160
