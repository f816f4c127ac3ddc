#!/usr/bin/env bash
# Issue 35, after the merge: the GPU test's time bound seen to fire (a 1 s bound on a 3 s
# case: exit 1 naming the case and its point), then the inference GPU tests and the CUDA
# smoke tiers on the split GEMV (its four configurations in files of their own).
set -u
out=${OUT:-$PWD/out}; mkdir -p "$out" /tmp/b
tar -C /tmp/b -xzf "$1"; bin=$(echo /tmp/b/rooftop-*/bin)
export ROOFTOP_HOME=/tmp/rooftop-home NCCL_NVLS_ENABLE=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
echo "=== a 1 s bound on the split-KV decode case"
ROOFTOP_GPU_TEST_SECONDS=1 "$bin/rooftop_gpu_tests" "split-KV decode*" > "$out/bound-fires.txt" 2>&1; echo "exit $?"
tail -3 "$out/bound-fires.txt"
echo "=== inference GPU tests"
"$bin/rooftop_gpu_tests" "inference*" --durations yes > "$out/gpu-tests-inference.txt" 2>&1; echo "exit $?"
grep -E " s: |passed|failed" "$out/gpu-tests-inference.txt"
for suite in gemm attention inference; do
  echo "=== $suite smoke (cuda)"
  "$bin/rooftop" run --suite $suite --backend cuda --tier smoke --out "$out/smoke-$suite.json" > "$out/smoke-$suite.log" 2>&1
  echo "exit $?"; grep -cE " ok$" "$out/smoke-$suite.log"; grep -E "failed|error|skipped" "$out/smoke-$suite.log" | head -5
done
