#!/usr/bin/env bash
# Issue 43's H100 figures: the 8B's sustainable rate at the issue's objective (TTFT p99 <= 1 s,
# TPOT p99 <= 50 ms) at chat-like lengths, and at vLLM's v0.6.0 blog lengths (ShareGPT's
# means, 202 in and 179 out, fixed) from 32 requests/s down.
# usage: OUT=dir docs/results/issue43/session7/call-serve-sweeps.sh bundle.tar.xz
set -u
out=${OUT:-$PWD/out}; mkdir -p "$out"
rm -rf /tmp/b && mkdir -p /tmp/b && tar -C /tmp/b -xf "$1"
R=$(echo /tmp/b/rooftop-*/bin/rooftop)
export ROOFTOP_HOME=/tmp/rooftop-home
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > "$out/gpu.txt" 2>&1
[ -n "$(ls $ROOFTOP_HOME/profiles/*.json 2>/dev/null)" ] || "$R" characterize --backend cuda > "$out/characterize.txt" 2>&1
for shape in llama-3.1-8b:serve:24x128 llama-3.1-8b:serve:32x256:fixed=202/179; do
  name=$(echo "$shape" | tr ':=/' '___')
  timeout 280 "$R" run --backend cuda --suite inference --dtype bf16 --repetitions 1 --seed 11 --sweep-rate \
    --slo ttft=1s,tpot=50ms --shape "$shape" --out "$out/$name.json" > "$out/$name.log" 2>&1
  echo "$shape exit $?"; grep -A12 "^serve " "$out/$name.log" | cut -c1-130
done
