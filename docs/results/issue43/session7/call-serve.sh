#!/usr/bin/env bash
# Issue 43 on one GPU: the serve decoder's GPU test, then serve points of the 1B and the 8B
# at chat-like lengths (and, with SWEEP set, --sweep-rate of the 8B from that rate down).
# usage: OUT=dir [SWEEP=RATExN] [POINTS="shape ..."] docs/results/issue43/session7/call-serve.sh bundle.tar.xz
# The device call carries 64 MiB at most: the bundle goes in two parts (one with
# rooftop_gpu_tests, one with rooftop), each step runs where its binary is.
set -u
out=${OUT:-$PWD/out}; mkdir -p "$out"
rm -rf /tmp/b && mkdir -p /tmp/b && tar -C /tmp/b -xf "$1"
bin=$(echo /tmp/b/rooftop-*/bin); R=$bin/rooftop
export ROOFTOP_HOME=/tmp/rooftop-home
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > "$out/gpu.txt" 2>&1
if [ -x "$bin/rooftop_gpu_tests" ]; then
  timeout 150 "$bin/rooftop_gpu_tests" "serve*" > "$out/gpu-tests-serve.txt" 2>&1; echo "serve tests exit $?"
  grep -E "^test cases|^assertions|FAILED|All tests" "$out/gpu-tests-serve.txt" | tail -4
  grep -B3 -A12 "FAILED" "$out/gpu-tests-serve.txt" | head -60
  exit 0
fi
[ -n "$(ls $ROOFTOP_HOME/profiles/*.json 2>/dev/null)" ] || "$R" characterize --backend cuda > "$out/characterize.txt" 2>&1
for point in ${POINTS:-llama-3.2-1b:serve:4x48 llama-3.1-8b:serve:4x64}; do
  name=$(echo "$point" | tr ':' '_')
  timeout 200 "$R" run --backend cuda --suite inference --dtype bf16 --repetitions 2 --shape "$point" \
    --out "$out/$name.json" > "$out/$name.log" 2>&1
  echo "$point exit $?"; grep -A3 "^serve " "$out/$name.log" | cut -c1-130
done
if [ -n "${SWEEP:-}" ]; then
  timeout 400 "$R" run --backend cuda --suite inference --dtype bf16 --repetitions 1 --sweep-rate \
    --shape "llama-3.1-8b:serve:$SWEEP" --out "$out/sweep-8b.json" > "$out/sweep-8b.log" 2>&1
  echo "sweep exit $?"; tail -14 "$out/sweep-8b.log" | cut -c1-130
fi
